"""The sandbox's data: YNAB plans as YNAB's API v1 shows them, in milliunits.

Every entity YNAB returns in delta requests carries `knowledge`: the plan's
`server_knowledge` when it last changed. A write raises the plan's counter once and stamps
what it touched, so `?last_knowledge_of_server=N` is one indexed query per entity kind.
Deleted entities stay as tombstones (`deleted=True`) so deltas can report them.

Derived figures are kept materialised and maintained by `sandbox.ledger` on every write,
so reads never re-scan a plan's transactions:
- `Account.cleared_balance` / `uncleared_balance` (reconciled counts as cleared);
- `MonthCategory.activity` per (category, month), including credit-card payment moves;
- `Month` rows carry the month-level knowledge stamp.
Balances carried from month to month, Ready to Assign and goal progress are computed from
these rows by `sandbox.budget_math` when a month is read.
"""

from __future__ import annotations

import uuid

from django.db import models


def new_id() -> str:
    return str(uuid.uuid4())


class Plan(models.Model):
    """A YNAB plan (formerly "budget") with its own server_knowledge counter."""

    id = models.CharField(primary_key=True, max_length=36, default=new_id)
    name = models.CharField(max_length=200)
    first_month = models.DateField()
    last_month = models.DateField()
    date_format = models.JSONField(null=True, blank=True)
    currency_format = models.JSONField(null=True, blank=True)
    server_knowledge = models.BigIntegerField(default=0)
    last_modified_on = models.DateTimeField(auto_now=True)
    # When a client last opened this plan; the newest one is what `last-used` means.
    last_used_on = models.DateTimeField(null=True, blank=True)
    # The plan `default` names (YNAB: an OAuth app's default plan selection); at most one is expected.
    is_default = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class KnowledgeStamped(models.Model):
    """An entity that delta requests return: stamped with the knowledge of its last change."""

    plan = models.ForeignKey(Plan, on_delete=models.CASCADE, related_name="+")
    knowledge = models.BigIntegerField(default=0)
    deleted = models.BooleanField(default=False)

    class Meta:
        abstract = True


class Account(KnowledgeStamped):
    TYPES = [
        ("checking", "Checking"),
        ("savings", "Savings"),
        ("cash", "Cash"),
        ("creditCard", "Credit card"),
        ("lineOfCredit", "Line of credit"),
        ("otherAsset", "Other asset"),
        ("otherLiability", "Other liability"),
        ("mortgage", "Mortgage"),
        ("autoLoan", "Auto loan"),
        ("studentLoan", "Student loan"),
        ("personalLoan", "Personal loan"),
        ("medicalDebt", "Medical debt"),
        ("otherDebt", "Other debt"),
    ]

    id = models.CharField(primary_key=True, max_length=36, default=new_id)
    name = models.CharField(max_length=200)
    type = models.CharField(max_length=20, choices=TYPES)
    on_budget = models.BooleanField(default=True)
    closed = models.BooleanField(default=False)
    note = models.TextField(null=True, blank=True)
    cleared_balance = models.BigIntegerField(default=0)
    uncleared_balance = models.BigIntegerField(default=0)
    transfer_payee = models.ForeignKey(
        "Payee", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    direct_import_linked = models.BooleanField(default=False)
    direct_import_in_error = models.BooleanField(default=False)
    last_reconciled_at = models.DateTimeField(null=True, blank=True)
    # LoanAccountPeriodicValue objects: {"YYYY-MM-DD": milliunits}; rates in thousandths of a percent.
    debt_interest_rates = models.JSONField(default=dict, blank=True)
    debt_minimum_payments = models.JSONField(default=dict, blank=True)
    debt_escrow_amounts = models.JSONField(default=dict, blank=True)
    sort_order = models.IntegerField(default=0)

    class Meta:
        ordering = ["sort_order", "name"]
        indexes = [models.Index(fields=["plan", "knowledge"])]

    def __str__(self) -> str:
        return self.name

    @property
    def balance(self) -> int:
        return self.cleared_balance + self.uncleared_balance


class CategoryGroup(KnowledgeStamped):
    id = models.CharField(primary_key=True, max_length=36, default=new_id)
    name = models.CharField(max_length=50)
    hidden = models.BooleanField(default=False)
    internal = models.BooleanField(default=False)
    sort_order = models.IntegerField(default=0)

    class Meta:
        ordering = ["sort_order", "name"]
        indexes = [models.Index(fields=["plan", "knowledge"])]

    def __str__(self) -> str:
        return self.name


class Category(KnowledgeStamped):
    """A category. `role` marks the ones YNAB treats specially."""

    ROLE_NONE = ""
    ROLE_READY_TO_ASSIGN = "ready_to_assign"  # "Inflow: Ready to Assign" (internal)
    ROLE_UNCATEGORIZED = "uncategorized"  # "Uncategorized" (internal)
    ROLE_SPLIT = "split"  # the hidden category split parents carry; never listed
    ROLE_CREDIT_CARD_PAYMENT = "credit_card_payment"  # one per credit card, in "Credit Card Payments"
    ROLES = [
        (ROLE_NONE, "ordinary"),
        (ROLE_READY_TO_ASSIGN, "Inflow: Ready to Assign"),
        (ROLE_UNCATEGORIZED, "Uncategorized"),
        (ROLE_SPLIT, "Split"),
        (ROLE_CREDIT_CARD_PAYMENT, "Credit card payment"),
    ]
    # The goal (target) columns below, as YNAB names them: what removing a goal clears.
    GOAL_FIELDS = (
        "goal_type",
        "goal_needs_whole_amount",
        "goal_day",
        "goal_cadence",
        "goal_cadence_frequency",
        "goal_creation_month",
        "goal_target",
        "goal_target_date",
        "goal_snoozed_at",
    )

    id = models.CharField(primary_key=True, max_length=36, default=new_id)
    group = models.ForeignKey(CategoryGroup, on_delete=models.CASCADE, related_name="categories")
    name = models.CharField(max_length=100)
    hidden = models.BooleanField(default=False)
    internal = models.BooleanField(default=False)
    role = models.CharField(max_length=24, choices=ROLES, default=ROLE_NONE, blank=True)
    # For a credit card payment category: the card it pays.
    linked_account = models.ForeignKey(
        Account, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.TextField(null=True, blank=True)
    # Goal (target) definition, as YNAB stores it; progress is computed per month.
    goal_type = models.CharField(max_length=8, null=True, blank=True)  # TB, TBD, MF, NEED, DEBT
    goal_needs_whole_amount = models.BooleanField(null=True, blank=True)
    goal_day = models.IntegerField(null=True, blank=True)
    goal_cadence = models.IntegerField(null=True, blank=True)
    goal_cadence_frequency = models.IntegerField(null=True, blank=True)
    goal_creation_month = models.DateField(null=True, blank=True)
    goal_target = models.BigIntegerField(null=True, blank=True)
    goal_target_date = models.DateField(null=True, blank=True)
    goal_snoozed_at = models.DateTimeField(null=True, blank=True)
    sort_order = models.IntegerField(default=0)

    class Meta:
        ordering = ["sort_order", "name"]
        indexes = [models.Index(fields=["plan", "knowledge"])]
        verbose_name_plural = "categories"

    def __str__(self) -> str:
        return self.name


class Month(KnowledgeStamped):
    """A plan month (first day). Its figures are derived; the row holds its note and stamp."""

    month = models.DateField()
    note = models.TextField(null=True, blank=True)
    # Materialised by `sandbox.ledger` (FIFO over the plan's cash flows): null when not computable.
    age_of_money = models.IntegerField(null=True, blank=True)
    # The age-of-money FIFO as it stood when the month began (`budget_math.age_of_money`),
    # so a write replays only the months from its own on.
    fifo_state = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["month"]
        constraints = [models.UniqueConstraint(fields=["plan", "month"], name="sandbox_month_unique")]
        indexes = [models.Index(fields=["plan", "knowledge"])]

    def __str__(self) -> str:
        return self.month.isoformat()


class MonthCategory(models.Model):
    """One category in one month: what was assigned and the (materialised) activity."""

    plan = models.ForeignKey(Plan, on_delete=models.CASCADE, related_name="+")
    category = models.ForeignKey(Category, on_delete=models.CASCADE, related_name="months")
    month = models.DateField()
    budgeted = models.BigIntegerField(default=0)
    activity = models.BigIntegerField(default=0)
    knowledge = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["month"]
        verbose_name_plural = "month categories"
        constraints = [
            models.UniqueConstraint(fields=["category", "month"], name="sandbox_month_category_unique")
        ]
        indexes = [models.Index(fields=["plan", "month"])]


class Payee(KnowledgeStamped):
    id = models.CharField(primary_key=True, max_length=36, default=new_id)
    name = models.CharField(max_length=500)
    transfer_account = models.ForeignKey(
        Account, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )

    class Meta:
        ordering = ["name"]
        indexes = [models.Index(fields=["plan", "knowledge"]), models.Index(fields=["plan", "name"])]

    def __str__(self) -> str:
        return self.name


class PayeeLocation(KnowledgeStamped):
    id = models.CharField(primary_key=True, max_length=36, default=new_id)
    payee = models.ForeignKey(Payee, on_delete=models.CASCADE, related_name="locations")
    latitude = models.CharField(max_length=32)
    longitude = models.CharField(max_length=32)

    class Meta:
        indexes = [models.Index(fields=["plan", "knowledge"])]


class Transaction(KnowledgeStamped):
    CLEARED = [("cleared", "cleared"), ("uncleared", "uncleared"), ("reconciled", "reconciled")]

    id = models.CharField(primary_key=True, max_length=36, default=new_id)
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="transactions")
    date = models.DateField()
    amount = models.BigIntegerField()
    memo = models.CharField(max_length=500, null=True, blank=True)
    cleared = models.CharField(max_length=10, choices=CLEARED, default="uncleared")
    approved = models.BooleanField(default=False)
    # null = never flagged; "" = flag removed (YNAB answers "" then).
    flag_color = models.CharField(max_length=8, null=True, blank=True)
    flag_name = models.CharField(max_length=100, null=True, blank=True)
    payee = models.ForeignKey(Payee, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    category = models.ForeignKey(Category, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    transfer_account = models.ForeignKey(
        Account, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    transfer_transaction = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    matched_transaction_id = models.CharField(max_length=36, null=True, blank=True)
    import_id = models.CharField(max_length=36, null=True, blank=True)
    import_payee_name = models.CharField(max_length=500, null=True, blank=True)
    import_payee_name_original = models.CharField(max_length=500, null=True, blank=True)
    debt_transaction_type = models.CharField(max_length=20, null=True, blank=True)

    class Meta:
        ordering = ["date", "id"]
        indexes = [
            models.Index(fields=["plan", "knowledge"]),
            models.Index(fields=["plan", "date"]),
            models.Index(fields=["account", "import_id"]),
            models.Index(fields=["category"]),
            models.Index(fields=["payee"]),
        ]

    def __str__(self) -> str:
        return f"{self.date} {self.amount}"


class Subtransaction(KnowledgeStamped):
    id = models.CharField(primary_key=True, max_length=36, default=new_id)
    transaction = models.ForeignKey(Transaction, on_delete=models.CASCADE, related_name="subtransactions")
    amount = models.BigIntegerField()
    memo = models.CharField(max_length=500, null=True, blank=True)
    payee = models.ForeignKey(Payee, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    category = models.ForeignKey(Category, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    transfer_account = models.ForeignKey(
        Account, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    transfer_transaction = models.ForeignKey(
        Transaction, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    sort_order = models.IntegerField(default=0)

    class Meta:
        ordering = ["sort_order", "id"]
        indexes = [models.Index(fields=["plan", "knowledge"]), models.Index(fields=["category"])]


class ScheduledTransaction(KnowledgeStamped):
    FREQUENCIES = [
        (f, f)
        for f in (
            "never",
            "daily",
            "weekly",
            "everyOtherWeek",
            "twiceAMonth",
            "every4Weeks",
            "monthly",
            "everyOtherMonth",
            "every3Months",
            "every4Months",
            "twiceAYear",
            "yearly",
            "everyOtherYear",
        )
    ]

    id = models.CharField(primary_key=True, max_length=36, default=new_id)
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="scheduled_transactions")
    date_first = models.DateField()
    date_next = models.DateField()
    frequency = models.CharField(max_length=16, choices=FREQUENCIES)
    amount = models.BigIntegerField()
    memo = models.CharField(max_length=500, null=True, blank=True)
    flag_color = models.CharField(max_length=8, null=True, blank=True)
    flag_name = models.CharField(max_length=100, null=True, blank=True)
    payee = models.ForeignKey(Payee, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    category = models.ForeignKey(Category, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    transfer_account = models.ForeignKey(
        Account, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["date_next", "id"]
        indexes = [models.Index(fields=["plan", "knowledge"])]


class ScheduledSubtransaction(KnowledgeStamped):
    id = models.CharField(primary_key=True, max_length=36, default=new_id)
    scheduled_transaction = models.ForeignKey(
        ScheduledTransaction, on_delete=models.CASCADE, related_name="subtransactions"
    )
    amount = models.BigIntegerField()
    memo = models.CharField(max_length=500, null=True, blank=True)
    payee = models.ForeignKey(Payee, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    category = models.ForeignKey(Category, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    transfer_account = models.ForeignKey(
        Account, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    sort_order = models.IntegerField(default=0)

    class Meta:
        ordering = ["sort_order", "id"]
        indexes = [models.Index(fields=["plan", "knowledge"])]


class MoneyMovementGroup(models.Model):
    id = models.CharField(primary_key=True, max_length=36, default=new_id)
    plan = models.ForeignKey(Plan, on_delete=models.CASCADE, related_name="+")
    group_created_at = models.DateTimeField()
    month = models.DateField()
    note = models.TextField(null=True, blank=True)
    performed_by_user_id = models.CharField(max_length=36, null=True, blank=True)
    knowledge = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["group_created_at"]


class MoneyMovement(models.Model):
    """A record of money assigned between categories (or Ready to Assign) in a month."""

    id = models.CharField(primary_key=True, max_length=36, default=new_id)
    plan = models.ForeignKey(Plan, on_delete=models.CASCADE, related_name="+")
    month = models.DateField(null=True, blank=True)
    moved_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(null=True, blank=True)
    group = models.ForeignKey(
        MoneyMovementGroup, null=True, blank=True, on_delete=models.SET_NULL, related_name="movements"
    )
    performed_by_user_id = models.CharField(max_length=36, null=True, blank=True)
    from_category = models.ForeignKey(
        Category, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    to_category = models.ForeignKey(
        Category, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    amount = models.BigIntegerField()
    knowledge = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["moved_at", "id"]


class BankTransaction(models.Model):
    """A transaction "waiting at the bank" for a linked account, until an import brings it in."""

    plan = models.ForeignKey(Plan, on_delete=models.CASCADE, related_name="+")
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+")
    date = models.DateField()
    amount = models.BigIntegerField()
    payee_name = models.CharField(max_length=200)
    memo = models.CharField(max_length=500, null=True, blank=True)
    import_id = models.CharField(max_length=36)
    imported_as = models.ForeignKey(
        Transaction, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    imported_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["date", "id"]


class RequestLogEntry(models.Model):
    """One request the sandbox served: what a test counts to prove how many reached 'YNAB'."""

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=500)
    query = models.CharField(max_length=500, blank=True)
    status = models.IntegerField()
    duration_ms = models.FloatField()
    # A short, non-reversible tag of the bearer token, so requests per token can be told apart.
    token_tag = models.CharField(max_length=16, blank=True)
    fault = models.CharField(max_length=40, blank=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = "request"
        verbose_name_plural = "request log"


class Fault(models.Model):
    """An injected fault: the next `remaining` requests matching method and path fail as asked."""

    KIND_STATUS = "status"  # answer with `status` and YNAB's error body
    KIND_DELAY = "delay"  # wait `delay_ms`, then answer normally
    KIND_DROP = "drop_after_write"  # apply the request, then close the connection unanswered
    KIND_DROP_BEFORE = "drop_before_write"  # close the connection unanswered, the request not run
    KINDS = [
        (KIND_STATUS, "fail with a status"),
        (KIND_DELAY, "delay"),
        (KIND_DROP, "apply, then drop the answer"),
        (KIND_DROP_BEFORE, "drop the answer, not applied"),
    ]

    created_at = models.DateTimeField(auto_now_add=True)
    kind = models.CharField(max_length=20, choices=KINDS)
    method = models.CharField(max_length=10, blank=True, help_text="Empty matches any method.")
    path_pattern = models.CharField(
        max_length=300, blank=True, help_text="A regular expression searched in the path; empty matches any."
    )
    status = models.IntegerField(null=True, blank=True)
    delay_ms = models.IntegerField(default=0)
    remaining = models.IntegerField(default=1)

    class Meta:
        ordering = ["id"]
