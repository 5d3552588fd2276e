"""English date formats, in place of Django's "Dec. 3, 2026, 2:26 p.m.": `2026-12-03 14:26`.

Django's locale formats win over the settings' DATETIME_FORMAT and friends when USE_I18N is on;
a module under FORMAT_MODULE_PATH wins over Django's locale. Times are shown in the server's
time zone (settings.TIME_ZONE). Formats not named here are Django's English ones.
"""

DATE_FORMAT = "Y-m-d"
SHORT_DATE_FORMAT = "Y-m-d"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "Y-m-d H:i"
SHORT_DATETIME_FORMAT = "Y-m-d H:i"
MONTH_DAY_FORMAT = "F j"
YEAR_MONTH_FORMAT = "F Y"
