import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('devices', '0004_device_broker_certificate'),
        ('experiments', '0016_coap_path'),
    ]

    operations = [
        migrations.AddField(
            model_name='experiment',
            name='target_device',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='devices.device'),
        ),
        migrations.AddField(
            model_name='experiment',
            name='target_host',
            field=models.CharField(blank=True, default='', max_length=300),
        ),
        migrations.AddField(
            model_name='run',
            name='target',
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
