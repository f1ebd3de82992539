from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('experiments', '0011_part_outcomes'),
    ]

    operations = [
        migrations.AlterField(
            model_name='experiment',
            name='measurement',
            field=models.CharField(choices=[('round_trip', 'Round trip'), ('one_way', 'One way (controller to device)'), ('ack', 'Acknowledgement (publish to PUBACK/PUBCOMP, CON to ACK)')], default='round_trip', max_length=16),
        ),
    ]
