"""Admin of the sandbox: its YNAB data, and its traffic (request log, injected faults)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from avenir_mcp.sandbox.faults import check_fault
from avenir_mcp.sandbox.ledger import rebuild_derived
from avenir_mcp.sandbox.models import (
    Account,
    BankTransaction,
    Category,
    CategoryGroup,
    Fault,
    MoneyMovement,
    MonthCategory,
    Payee,
    Plan,
    RequestLogEntry,
    ScheduledTransaction,
    Transaction,
)
from avenir_mcp.sandbox.serialize.money import MoneyFormat

# --- YNAB data: read-only (changes go through the API, which keeps figures and deltas right) ---


class ReadOnlyAdmin(admin.ModelAdmin):
    """Look, never touch: an edit here would bypass the ledger (balances, knowledge stamps)."""

    list_per_page = 100
    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


def money(field: str, label: str):
    """A list column showing a milliunit field in its plan's currency."""

    @admin.display(description=label, ordering=field)
    def column(self, obj) -> str:
        return MoneyFormat(obj.plan.currency_format).formatted(getattr(obj, field))

    return column


@admin.register(Plan)
class PlanAdmin(ReadOnlyAdmin):
    list_display = (
        "name",
        "id",
        "first_month",
        "last_month",
        "server_knowledge",
        "last_used_on",
        "is_default",
    )
    search_fields = ("name", "id")
    actions = ["recompute_figures"]

    @admin.action(description="Recompute balances, activity and age of money from the transactions")
    def recompute_figures(self, request: HttpRequest, queryset: QuerySet[Plan]) -> None:
        for plan in queryset:
            rebuild_derived(plan)
        self.message_user(request, f"Recomputed {queryset.count()} plan(s).", messages.SUCCESS)


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = (
        "name",
        "plan",
        "type",
        "on_budget",
        "closed",
        "shown_balance",
        "direct_import_linked",
        "deleted",
    )
    list_filter = ("type", "on_budget", "closed", "direct_import_linked")
    list_select_related = ("plan",)
    search_fields = ("name", "id")
    shown_balance = money("cleared_balance", "cleared balance")


@admin.register(CategoryGroup)
class CategoryGroupAdmin(ReadOnlyAdmin):
    list_display = ("name", "plan", "internal", "hidden", "deleted")
    list_select_related = ("plan",)
    search_fields = ("name",)


@admin.register(Category)
class CategoryAdmin(ReadOnlyAdmin):
    list_display = ("name", "group", "plan", "role", "goal_type", "hidden", "deleted")
    list_filter = ("role", "goal_type", "hidden")
    list_select_related = ("plan", "group")
    search_fields = ("name", "id")


@admin.register(MonthCategory)
class MonthCategoryAdmin(ReadOnlyAdmin):
    list_display = ("month", "category", "plan", "assigned", "shown_activity")
    list_select_related = ("plan", "category")
    date_hierarchy = "month"
    assigned = money("budgeted", "assigned")
    shown_activity = money("activity", "activity")


@admin.register(Payee)
class PayeeAdmin(ReadOnlyAdmin):
    list_display = ("name", "plan", "transfer_account", "deleted")
    list_select_related = ("plan", "transfer_account")
    search_fields = ("name", "id")


@admin.register(Transaction)
class TransactionAdmin(ReadOnlyAdmin):
    list_display = ("date", "account", "payee", "category", "shown_amount", "cleared", "approved", "deleted")
    list_filter = ("cleared", "approved", "deleted")
    list_select_related = ("plan", "account", "payee", "category")
    search_fields = ("id", "memo", "import_id")
    date_hierarchy = "date"
    shown_amount = money("amount", "amount")


@admin.register(ScheduledTransaction)
class ScheduledTransactionAdmin(ReadOnlyAdmin):
    list_display = ("date_next", "frequency", "account", "payee", "shown_amount", "deleted")
    list_select_related = ("plan", "account", "payee")
    shown_amount = money("amount", "amount")


@admin.register(MoneyMovement)
class MoneyMovementAdmin(ReadOnlyAdmin):
    list_display = ("moved_at", "month", "from_category", "to_category", "shown_amount")
    list_select_related = ("plan", "from_category", "to_category")
    shown_amount = money("amount", "amount")


@admin.register(BankTransaction)
class BankTransactionAdmin(admin.ModelAdmin):
    """Lines waiting at the bank for linked accounts; add some to demo an import."""

    list_display = ("date", "account", "payee_name", "amount", "import_id", "imported_at")
    list_filter = ("imported_at",)
    list_select_related = ("account",)
    readonly_fields = ("imported_as", "imported_at")


# --- Traffic: the request log (read-only) and injected faults (sandbox.traffic) ----------------


@admin.register(RequestLogEntry)
class RequestLogEntryAdmin(admin.ModelAdmin):
    """What the sandbox served, newest first; nobody edits history."""

    list_display = (
        "id",
        "created_at",
        "method",
        "path",
        "query",
        "status",
        "duration_ms",
        "token_tag",
        "fault",
    )
    list_filter = ("method", "status")
    search_fields = ("path",)
    list_per_page = 100
    show_full_result_count = False  # no COUNT(*) over a long log on every page

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: RequestLogEntry | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: RequestLogEntry | None = None) -> bool:
        return False


class FaultForm(forms.ModelForm):
    """A fault as `sandbox.faults.inject` would accept it."""

    class Meta:
        model = Fault
        fields = ["kind", "method", "path_pattern", "status", "delay_ms", "remaining"]

    def clean_method(self) -> str:
        return self.cleaned_data["method"].upper()

    def clean(self) -> dict:
        cleaned = super().clean()
        if not self.errors:
            check_fault(Fault(**{name: cleaned.get(name) for name in self.Meta.fields}))
        return cleaned


@admin.register(Fault)
class FaultAdmin(admin.ModelAdmin):
    """Faults for demos: the next N matching API requests fail, wait, or lose their answer."""

    form = FaultForm
    list_display = ("id", "kind", "method", "path_pattern", "status", "delay_ms", "remaining", "created_at")
    list_filter = ("kind",)
