"""Bank statement labels as French banks print them, noise included.

Real imports carry a payment-type prefix (`CB`, `CARTE`, `PRLV SEPA`, `VIR INST`...), the
masked card number, the purchase date, invoice and reference numbers. Payee normalisation
(docs/conventions.md#heuristics) has to see through all of it, so seeded payees are named exactly like this.
"""

from __future__ import annotations

from datetime import date

DEBIT_CARD = "525130******2"  # the checking account's debit card, masked as banks print it
CREDIT_CARD = "497010******8"


def card_label(merchant: str, day: date, card: str, *, style: int = 0) -> str:
    """A card payment: the three layouts French banks use, picked by `style`."""
    stamp = day.strftime("%d/%m")
    layouts = (
        f"CB {merchant} {stamp} {card}",
        f"CARTE {stamp} {merchant} {card}",
        f"CB {merchant} {card} {stamp}",
    )
    return layouts[style % len(layouts)]


def direct_debit_label(creditor: str, *, invoice: int | None = None, reference: int | None = None) -> str:
    """A SEPA direct debit, with the creditor's invoice (`FACT 123456`) or mandate reference."""
    label = f"PRLV SEPA {creditor}"
    if invoice is not None:
        label += f" FACT {invoice:06d}"
    if reference is not None:
        label += f" REF {reference}"
    return label


def transfer_label(party: str, *, instant: bool = False, reference: int | None = None) -> str:
    """A credit transfer in or out (`VIR SEPA` or `VIR INST`), with its reference number."""
    label = f"{'VIR INST' if instant else 'VIR SEPA'} {party}"
    if reference is not None:
        label += f" REF {reference}"
    return label


def ynab_import_id(amount: int, day: date, occurrence: int) -> str:
    """YNAB's own import id: `YNAB:<milliunits>:<date>:<n-th same amount that day>`."""
    return f"YNAB:{amount}:{day.isoformat()}:{occurrence}"
