# The models moved here from the `tools` app (issue 24): their tables keep their names, so this
# migration only tells Django's state (SeparateDatabaseAndState) and moves the content types, so
# permissions and admin history follow the models.

from django.db import migrations, models


def _move_content_types(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label="tools", model__in=['mcptoken']).update(app_label="tokens")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('tools', '0007_planwritelock'),
        ('contenttypes', '0002_remove_content_type_name'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
            migrations.CreateModel(
                name='McpToken',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('name', models.CharField(help_text="Who uses it, e.g. 'Claude Desktop'.", max_length=100, unique=True)),
                    ('token_hash', models.CharField(editable=False, max_length=64, unique=True)),
                    ('prefix', models.CharField(editable=False, help_text='First characters, to recognise it.', max_length=8)),
                    ('scope', models.CharField(choices=[('read', 'read-only'), ('read_write', 'read and write')], default='read_write', max_length=12)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('last_used_at', models.DateTimeField(blank=True, editable=False, null=True)),
                    ('revoked_at', models.DateTimeField(blank=True, null=True)),
                ],
                options={
                    'verbose_name': 'MCP token',
                    'db_table': 'tools_mcptoken',
                    'ordering': ['name'],
                },
            ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(_move_content_types, migrations.RunPython.noop),
    ]
