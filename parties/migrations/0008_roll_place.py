# A correction's roll is replayed in the place of the roll it corrected, so correcting a roll
# no longer voids and enters again every roll of the round after it.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('parties', '0007_remove_roll_made_by_correction'),
    ]

    operations = [
        migrations.AddField(
            model_name='roll',
            name='place',
            field=models.PositiveBigIntegerField(
                blank=True, help_text='replayed in the place of this roll id', null=True
            ),
        ),
    ]
