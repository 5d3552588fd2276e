#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "avenir_mcp.avenir_site.settings")
    if sys.argv[1:2] == ["runserver"] and "--noreload" not in sys.argv:
        # The reloader's supervisor: it watches files and starts the process that serves, which
        # sets Django up. Django's command line would set it up here too, a second more to start.
        from avenir_mcp.avenir_site.management.commands.runserver import Command

        Command().run_from_argv(sys.argv)
        return
    from django.core.management import execute_from_command_line

    from avenir_mcp.avenir_site.startup import set_up_django

    set_up_django()  # before Django's command line, which then finds it done
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
