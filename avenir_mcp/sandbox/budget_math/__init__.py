"""The sandbox's budget arithmetic, pure (no ORM, no clock): what YNAB's figures mean here.

- `effects`: what one transaction does to account balances and category activity.
- `months`: assigned / activity / available with carry-over, income, Ready to Assign.
- `goals`: target (goal) progress per month.
- `age_of_money`: YNAB's FIFO age of money.
- `calendar`: plan months.

Each module's docstring states its rules. All money is int milliunits.
"""
