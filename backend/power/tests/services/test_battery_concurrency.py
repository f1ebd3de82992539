"""Battery readings recorded by concurrent requests: one row, no error."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection

from power.models import BatteryReading
from power.services import battery_reading_record

WRITERS = 6


@pytest.mark.django_db(transaction=True)
def test_concurrent_readings_of_one_run_device_leave_one_row_and_raise_nothing(
    run_with_messages: Any,
) -> None:
    run, device = run_with_messages
    user = User.objects.create_user("gauge-reader", password="a long pass phrase 42")
    start = threading.Barrier(WRITERS)
    errors: list[BaseException] = []

    def write(charge_mah: float) -> None:
        try:
            start.wait(timeout=10)
            battery_reading_record(
                workspace=run.experiment.workspace,
                user=user,
                run=run,
                device=device,
                charge_mah=charge_mah,
                voltage_v=3.82,
            )
        except BaseException as error:  # reported by the assertion below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=write, args=(0.1 * (i + 1),)) for i in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert errors == []
    rows = list(BatteryReading.objects.filter(run=run, device=device))
    assert len(rows) == 1
    assert any(rows[0].charge_mah == pytest.approx(0.1 * (i + 1)) for i in range(WRITERS))
