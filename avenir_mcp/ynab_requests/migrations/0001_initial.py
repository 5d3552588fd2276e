# The models moved here from the `tools` app (issue 24): their tables keep their names, so this
# migration only tells Django's state (SeparateDatabaseAndState) and moves the content types, so
# permissions and admin history follow the models.

from django.db import migrations, models


def _move_content_types(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label="tools", model__in=['ynabrequest']).update(app_label="ynab_requests")


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
                name='YnabRequest',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('sent_at', models.DateTimeField(db_index=True)),
                    ('token_tag', models.CharField(help_text='A short, non-reversible tag of the YNAB token.', max_length=16)),
                    ('method', models.CharField(max_length=10)),
                    ('path', models.CharField(max_length=500)),
                    ('status', models.IntegerField(blank=True, help_text='Empty when no answer came back.', null=True)),
                    ('duration_ms', models.FloatField(blank=True, null=True)),
                    ('outcome', models.CharField(blank=True, max_length=40)),
                    ('spender', models.CharField(blank=True, default='', help_text="The MCP caller whose hourly share this read counted against (e.g. token:7); empty for writes and the service's own requests.", max_length=64)),
                ],
                options={
                    'verbose_name': 'YNAB request',
                    'db_table': 'tools_ynabrequest',
                    'ordering': ['-sent_at'],
                    'indexes': [models.Index(fields=['token_tag', 'sent_at'], name='tools_ynabr_token_t_dcaf0a_idx')],
                },
            ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(_move_content_types, migrations.RunPython.noop),
    ]
