"""Admin for this subject (to be filled)."""
