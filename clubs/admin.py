"""The admin: a club's tables, read through for support (a night's results are its party's, in
the parties admin)."""

from django.contrib import admin

from clubs import models


class MemberInline(admin.TabularInline):
    model = models.Member
    extra = 0


@admin.register(models.Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ["name", "code", "preset", "ranking", "created_at"]
    search_fields = ["name", "code"]
    exclude = ["options"]
    inlines = [MemberInline]


@admin.register(models.Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = ["club", "number", "starts_on", "closed_at"]


@admin.register(models.ClubNight)
class ClubNightAdmin(admin.ModelAdmin):
    list_display = ["season", "date", "party", "host"]
    raw_id_fields = ["party"]
