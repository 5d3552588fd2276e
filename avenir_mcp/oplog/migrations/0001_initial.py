# The models moved here from the `tools` app (issue 24): their tables keep their names, so this
# migration only tells Django's state (SeparateDatabaseAndState) and moves the content types, so
# permissions and admin history follow the models.

import django.db.models.deletion
import django.utils.timezone
import avenir_mcp.oplog.models
import uuid
from django.db import migrations, models


def _move_content_types(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label="tools", model__in=['operation', 'planwritelock']).update(app_label="oplog")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('tools', '0007_planwritelock'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('tokens', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
            migrations.CreateModel(
                name='PlanWriteLock',
                fields=[
                    ('plan_id', models.CharField(max_length=100, primary_key=True, serialize=False)),
                    ('holder', models.CharField(help_text='The process and call holding it (host:pid:random): one writer per plan.', max_length=140)),
                    ('expires_at', models.DateTimeField(help_text="Renewed while the holder works; past it (or once the holder's process is gone) another writer takes the plan.")),
                ],
                options={
                    'verbose_name': 'plan write lock',
                    'db_table': 'tools_planwritelock',
                },
            ),
            migrations.CreateModel(
                name='Operation',
                fields=[
                    ('id', models.CharField(default=avenir_mcp.oplog.models.new_operation_id, max_length=12, primary_key=True, serialize=False)),
                    ('plan_id', models.CharField(max_length=100)),
                    ('tool', models.CharField(max_length=64)),
                    ('subject', models.JSONField(help_text='The change as stored: no payee text, memos or amounts.')),
                    ('fingerprint', models.CharField(help_text='SHA-256 of the full subject, as confirmed.', max_length=64)),
                    ('preview', models.TextField(blank=True, help_text='What the person saw and agreed to.')),
                    ('confirmed_by', models.CharField(choices=[('input_required', 'input-required answer'), ('elicitation', 'in-call elicitation'), ('code', 'confirmation code'), ('none', 'not confirmed (acts at once)'), ('admin', 'the owner, in the admin')], max_length=16)),
                    ('client', models.CharField(help_text="Token name at the time, or 'stdio'.", max_length=100)),
                    ('status', models.CharField(choices=[('pending', 'pending (sent or about to be)'), ('applied', 'applied'), ('failed', 'failed'), ('unknown', 'unknown (no answer from YNAB)'), ('undone', 'undone')], default='pending', max_length=16)),
                    ('undo_data', models.JSONField(blank=True, help_text='Values before and after, for undo.', null=True)),
                    ('undoable', models.BooleanField(help_text='Whether the tool can reverse this kind of change.')),
                    ('error', models.TextField(blank=True, help_text='For failed/unknown: what happened, what landed.')),
                    ('writer', models.CharField(blank=True, help_text='The process that sends its requests (host:pid): settling leaves a pending row alone while that process may still be at work.', max_length=100)),
                    ('settled_at', models.DateTimeField(blank=True, help_text="When its outcome was decided from YNAB's own state, after the request's answer was lost or the process stopped (oplog.settling).", null=True)),
                    ('correlation_id', models.UUIDField(db_index=True, default=uuid.uuid4, editable=False)),
                    ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False)),
                    ('completed_at', models.DateTimeField(blank=True, null=True)),
                    ('token', models.ForeignKey(blank=True, help_text='Empty for stdio / local use.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='operations', to='tokens.mcptoken')),
                    ('undo_of', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='oplog.operation')),
                    ('undone_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='oplog.operation')),
                ],
                options={
                    'db_table': 'tools_operation',
                    'ordering': ['-created_at', '-id'],
                    'permissions': [('undo_operation', 'Can undo an operation from the admin (writes to YNAB)')],
                    'indexes': [models.Index(fields=['plan_id', '-created_at', '-id'], name='tools_op_plan_created'), models.Index(fields=['status', '-created_at'], name='tools_op_status_created')],
                },
            ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(_move_content_types, migrations.RunPython.noop),
    ]
