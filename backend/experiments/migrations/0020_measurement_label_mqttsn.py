from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('experiments', '0019_interleaved_mechanism'),
    ]

    operations = [
        migrations.AlterField(
            model_name='experiment',
            name='measurement',
            field=models.CharField(choices=[('round_trip', 'Round trip'), ('one_way', 'One way (controller to device)'), ('ack', 'Acknowledgement (MQTT publish to PUBACK/PUBCOMP, MQTT-SN PUBLISH to PUBACK, CoAP CON to ACK)')], default='round_trip', max_length=16),
        ),
    ]
