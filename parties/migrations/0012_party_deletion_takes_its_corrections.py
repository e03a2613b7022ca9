import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('parties', '0011_self_join'),
    ]

    operations = [
        migrations.AlterField(
            model_name='latetap',
            name='resolved_by',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.RESTRICT, related_name='late_taps', to='parties.correction'),
        ),
        migrations.AlterField(
            model_name='roll',
            name='voided_by',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.RESTRICT, related_name='voided_rolls', to='parties.correction'),
        ),
    ]
