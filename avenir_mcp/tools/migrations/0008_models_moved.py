# The models moved to `tokens`, `ynab_requests` and `oplog` (issue 24): only Django's state forgets
# them here; their tables stay, adopted by those apps' first migrations.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('tools', '0007_planwritelock'),
        ('tokens', '0001_initial'),
        ('ynab_requests', '0001_initial'),
        ('oplog', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name='operation',
                    name='token',
                ),
                migrations.RemoveField(
                    model_name='operation',
                    name='undo_of',
                ),
                migrations.RemoveField(
                    model_name='operation',
                    name='undone_by',
                ),
                migrations.DeleteModel(
                    name='PlanWriteLock',
                ),
                migrations.DeleteModel(
                    name='YnabRequest',
                ),
                migrations.DeleteModel(
                    name='McpToken',
                ),
                migrations.DeleteModel(
                    name='Operation',
                ),
            ],
            database_operations=[],
        ),
    ]
