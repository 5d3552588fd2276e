"""Payee names reduce to the merchant, one rule at a time, and stay put once reduced."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from avenir_mcp.tools.logic.payees import normalise_payee

# Pieces of real bank payee text, so generated names exercise every rule and their mixes.
FRAGMENTS = st.sampled_from(
    ["CB", "CARTE", "PRLV", "PRLV SEPA", "VIR", "VIR INST", "VIR SEPA", "VIREMENT", "IBAN", "FACT",
     "FACT 123456", "FACT123456", "FR7630006000011234567890189", "FR76 3000 6000 0112 3456 7890 189",
     "525130******2", "XXXX1234", "X1234", "12/01", "12/01/26", "12/01/2026", "24/7", "1234567", "12345",
     "1234", "CARREFOUR", "Fnac", "amazon", "EDF", "café", "ß", "/", "*", " ", "  ", "\n", "\u200b", "\u202e"]
)  # fmt: skip
BANK_TEXT = st.lists(st.one_of(FRAGMENTS, st.text(max_size=6)), max_size=10).map(" ".join)
GLUED_BANK_TEXT = st.lists(st.one_of(FRAGMENTS, st.text(max_size=4)), max_size=10).map("".join)


@given(st.one_of(BANK_TEXT, GLUED_BANK_TEXT, st.text(max_size=60), st.none()))
def test_normalising_a_normalised_payee_changes_nothing(name):
    merchant = normalise_payee(name)

    assert normalise_payee(merchant) == merchant


@given(st.one_of(BANK_TEXT, st.text(max_size=60)))
def test_a_normalised_payee_is_one_upper_case_line_with_single_spaces(name):
    merchant = normalise_payee(name)

    assert merchant == merchant.upper()
    assert merchant == " ".join(merchant.split())
    assert "\n" not in merchant


@pytest.mark.parametrize(
    ("name", "merchant"),
    [
        # upper-case, one line, spaces collapsed
        ("Carrefour  market\n", "CARREFOUR MARKET"),
        ("pay\u200bpal", "PAYPAL"),
        # cut from an IBAN mention on
        ("VIR SEPA J DUPONT IBAN FR7630006000011234567890189", "J DUPONT"),
        ("VIR INST Jean FR7630006000011234567890189 loyer", "JEAN"),
        ("VIR Jean FR76 3000 6000 0112 3456 7890 189 loyer", "JEAN"),
        ("IBANEZ GUITARS", "IBANEZ GUITARS"),
        # strip leading payment-type words, longest first, whole words, repeatedly
        ("PRLV SEPA FREE MOBILE", "FREE MOBILE"),
        ("PRLV EDF", "EDF"),
        ("VIR SEPA LOYER", "LOYER"),
        ("VIR INST MAMAN", "MAMAN"),
        ("VIREMENT MAMAN", "MAMAN"),
        ("VIR MAMAN", "MAMAN"),
        ("CARTE SNCF", "SNCF"),
        ("CB CARTE FNAC", "FNAC"),
        ("CBX STORE", "CBX STORE"),
        ("VIRGIN MEGASTORE", "VIRGIN MEGASTORE"),
        ("CARTEL BAR", "CARTEL BAR"),
        ("FNAC CB", "FNAC CB"),
        # cut FACT + 6 digits onwards
        ("PRLV SEPA FREE MOBILE FACT 123456 ECH 05", "FREE MOBILE"),
        ("EDF FACT123456", "EDF"),
        ("FACTURE 123456", "FACTURE"),
        ("EDF FACT 12345", "EDF FACT"),
        # masked cards
        ("CB CARREFOUR 525130******2", "CARREFOUR"),
        ("CB FNAC XXXX1234", "FNAC"),
        ("CARTE X1234 SNCF", "SNCF"),
        # dates
        ("CARREFOUR 12/01", "CARREFOUR"),
        ("SHOP 12/01/26 PARIS", "SHOP PARIS"),
        ("SHOP 12/01/2026", "SHOP"),
        ("24/7 FITNESS", "24/7 FITNESS"),
        ("50/50 SHOP", "50/50 SHOP"),
        # runs of five or more digits
        ("AMAZON PAYMENTS 1234567", "AMAZON PAYMENTS"),
        ("REF12345ABC", "REF ABC"),
        ("FNAC 1234", "FNAC 1234"),
        # a rule that uncovers another
        ("12/01 CB FNAC", "FNAC"),
        ("1234567 PRLV SEPA EDF", "EDF"),
    ],
)
def test_it_reduces_bank_text_to_the_merchant(name, merchant):
    assert normalise_payee(name) == merchant


# Whole labels as French banks print them on statements and imports (docs/conventions.md#heuristics).
BANK_LABELS = [
    ("CB CARREFOUR MARKET 12/01 525130******2", "CARREFOUR MARKET"),
    ("CARTE 12/01/26 CARREFOUR MARKET 525130******2", "CARREFOUR MARKET"),
    ("CB CARREFOUR MARKET 525130******2 12/01", "CARREFOUR MARKET"),
    ("CB NETFLIX.COM 24/11 497010******8", "NETFLIX.COM"),
    ("CB AMAZON EU SARL 12/01 4978XXXXXXXX1234", "AMAZON EU SARL"),
    ("CB SNCF INTERNET 12/01", "SNCF INTERNET"),
    ("CB UBER *TRIP 12/01", "UBER *TRIP"),
    ("Cb Leclerc 03/02", "LECLERC"),
    ("CARTE X4521 12/01 TOTAL ACCESS", "TOTAL ACCESS"),
    ("PRLV SEPA FREE MOBILE FACT 123456 ECH 05/01/26", "FREE MOBILE"),
    ("PRLV SEPA EDF CLIENTS PARTICULIERS FACT123456789", "EDF CLIENTS PARTICULIERS"),
    ("PRLV SEPA DGFIP IMPOT 123456 FACT 654321", "DGFIP IMPOT"),
    ("PRLV SEPA SFR REF 12345678", "SFR REF"),
    ("PRLV SEPA NAVIGO ANNUEL 0012345", "NAVIGO ANNUEL"),
    ("PRLV ASSURANCE HABITATION MAAF", "ASSURANCE HABITATION MAAF"),
    ("VIR SEPA J DUPONT IBAN FR7630006000011234567890189", "J DUPONT"),
    ("VIR INST MME MARTIN CLAIRE FR76 3000 6000 0112 3456 7890 189 LOYER", "MME MARTIN CLAIRE"),
    ("VIR SEPA LOYER JANVIER", "LOYER JANVIER"),
    ("VIREMENT SALAIRE ACME SA 202601", "SALAIRE ACME SA"),
    ("VIR CAF DE PARIS 1234567 ALLOC", "CAF DE PARIS ALLOC"),
]


@pytest.mark.parametrize(("label", "merchant"), BANK_LABELS)
def test_a_real_bank_label_reduces_to_its_merchant(label, merchant):
    assert normalise_payee(label) == merchant


def test_the_same_merchant_written_differently_normalises_the_same():
    assert normalise_payee("CB CARREFOUR 12/01 525130******2") == normalise_payee("Carrefour  14/02")


@pytest.mark.parametrize(
    ("name", "kept"), [("VIREMENT", "VIREMENT"), ("CB 12/01", "CB 12/01"), ("123456", "123456")]
)
def test_it_keeps_the_upper_case_text_when_the_rules_leave_nothing(name, kept):
    assert normalise_payee(name) == kept


@pytest.mark.parametrize("name", [None, "", "  \n "])
def test_it_gives_empty_text_for_no_payee(name):
    assert normalise_payee(name) == ""
