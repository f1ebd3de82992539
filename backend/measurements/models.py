from __future__ import annotations

from django.db import models
from django.db.models import Q

from experiments.models import BenchOperation, Run, RunDevice


class Outcome(models.TextChoices):
    OK = "ok"
    LOST = "lost"
    REJECTED_SIGNATURE = "rejected_signature"
    REJECTED_REPLAY = "rejected_replay"
    DECRYPT_ERROR = "decrypt_error"


class MessageRecord(models.Model):
    """One measured message.

    Its round-trip time is t_recv_ns - t_send_ns, computed in queries: a stored generated
    column cost a third of the COPY throughput. Written only by COPY
    (measurements.services.csv_copy), never by row-by-row saves: a run can hold millions.

    The primary key (run_device, seq) is what makes a re-uploaded record land once.
    """

    pk = models.CompositePrimaryKey("run_device_id", "seq")
    # No database-level foreign key: its per-row trigger halved COPY throughput (measured in
    # docs/benchmarks.md). Rows are only ever written by csv_copy with the run_device of
    # a stored UploadChunk, and deleting a RunDevice cascades here through the ORM.
    run_device = models.ForeignKey(
        RunDevice, on_delete=models.CASCADE, related_name="records", db_constraint=False
    )
    seq = models.IntegerField()
    # Device monotonic clock, wall-anchored once per run (docs/control-plane.md §5), in ns.
    t_send_ns = models.BigIntegerField()
    t_recv_ns = models.BigIntegerField(null=True, blank=True)
    app_bytes = models.IntegerField()
    wire_bytes = models.IntegerField()
    outcome = models.CharField(max_length=24, choices=Outcome.choices)
    # Time spent securing the payload before sending and unsecuring the echo (ns); NULL for
    # a lost message.
    secure_ns = models.BigIntegerField(null=True, blank=True)
    unsecure_ns = models.BigIntegerField(null=True, blank=True)
    # The harness floor beside this message (ns): the `null` mechanism's secure and unsecure
    # on a payload of the same size, timed the same way just after the round trip
    # (device-agent/docs/security-mechanisms.md). NULL when the run has no mechanism
    # (`none`), from agents before it, and, like unsecure_ns, for what was not unsecured.
    floor_secure_ns = models.BigIntegerField(null=True, blank=True)
    floor_unsecure_ns = models.BigIntegerField(null=True, blank=True)
    # The mechanism this message was secured with in an interleaved run (the run's spec
    # `interleave_mechanisms[seq % k]`, as the agent wrote it); NULL in any other run.
    mechanism = models.CharField(max_length=40, null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(seq__gte=0), name="record_seq_non_negative"),
            models.CheckConstraint(
                condition=Q(app_bytes__gte=0, wire_bytes__gte=0), name="record_bytes_non_negative"
            ),
            models.CheckConstraint(
                condition=Q(outcome__in=Outcome.values), name="record_outcome_known"
            ),
            # No rule orders t_send_ns and t_recv_ns: a one-way run compares two clocks
            # (corrected by their measured offset), and a delay shorter than the offset's
            # uncertainty can come out negative; it is stored as measured.
        ]


class ChunkStatus(models.TextChoices):
    RECEIVED = "received"
    INGESTING = "ingesting"
    INGESTED = "ingested"
    FAILED = "failed"


class Stream(models.TextChoices):
    RECORDS = "records"  # MessageRecord rows (messaging runs)
    SAMPLES = "samples"  # BenchSample rows (cipher benchmarks)


class UploadChunk(models.Model):
    """A chunk of records or samples uploaded by an agent, kept as received until ingested.

    `idempotency_key` is unique per device part of a run: the same chunk sent twice is
    stored once. The key is chosen by the agent, so it is never unique across devices: a
    device of another workspace sending a victim's key first would otherwise make the
    victim's real chunk answer "duplicate" and be dropped.
    """

    run_device = models.ForeignKey(RunDevice, on_delete=models.CASCADE, related_name="chunks")
    stream = models.CharField(max_length=16, choices=Stream.choices, default=Stream.RECORDS)
    idempotency_key = models.CharField(max_length=200)
    index = models.PositiveIntegerField()
    is_final = models.BooleanField(default=False)
    record_total = models.PositiveIntegerField(null=True, blank=True)
    body = models.BinaryField()
    status = models.CharField(
        max_length=16, choices=ChunkStatus.choices, default=ChunkStatus.RECEIVED
    )
    records = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    received_at = models.DateTimeField(auto_now_add=True)
    ingested_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["run_device", "stream", "index"], name="uniq_chunk_stream_index"
            ),
            models.UniqueConstraint(
                fields=["run_device", "idempotency_key"], name="uniq_chunk_device_key"
            ),
        ]


class RunStatistic(models.Model):
    """Round-trip summary of one device in a run, or of all its devices (run_device NULL);
    in an interleaved run also of each mechanism's messages (mechanism set), beside the rows
    over all of its messages (mechanism NULL).

    Times in ns. Percentiles use linear interpolation (PostgreSQL percentile_cont); std is
    the sample standard deviation (n-1), NULL below two samples.
    """

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="statistics")
    run_device = models.ForeignKey(
        RunDevice, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    n = models.PositiveIntegerField()
    lost = models.PositiveIntegerField()
    mean_ns = models.FloatField(null=True)
    median_ns = models.FloatField(null=True)
    p95_ns = models.FloatField(null=True)
    p99_ns = models.FloatField(null=True)
    min_ns = models.FloatField(null=True)
    max_ns = models.FloatField(null=True)
    std_ns = models.FloatField(null=True)
    secure_mean_ns = models.FloatField(null=True)
    unsecure_mean_ns = models.FloatField(null=True)
    # Means of the records' harness floors; a mechanism's cost net of the harness is
    # secure_mean_ns - floor_secure_mean_ns (`net_secure_mean_ns`).
    floor_secure_mean_ns = models.FloatField(null=True)
    floor_unsecure_mean_ns = models.FloatField(null=True)
    # Medians over the same records: raw, and of each message's own net cost (secure_ns -
    # floor_secure_ns). A mechanism's calls after a pause run cold (caches and branch
    # predictors evicted: AES-128-CBC ~100 µs with 50 ms between messages against ~17 µs
    # back to back on the local testbed), and a few slow calls move a mean much more than
    # a median. NULL where the mean is NULL.
    secure_median_ns = models.FloatField(null=True)
    unsecure_median_ns = models.FloatField(null=True)
    net_secure_median_ns = models.FloatField(null=True)
    net_unsecure_median_ns = models.FloatField(null=True)
    # An interleaved run's mechanism (the records' `mechanism`); NULL: all the run's messages
    # (every run has these rows; only an interleaved run has rows with a mechanism).
    mechanism = models.CharField(max_length=40, null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["run", "run_device", "mechanism"],
                name="uniq_run_statistic",
                nulls_distinct=False,
            ),
        ]

    # Net of the floor: the difference of the two means. Both cover the same records (the
    # agent measures a floor for every message it timed a mechanism on), so this is also the
    # mean of the per-message differences; NULL without a floor (security `none`, or records
    # of an agent before the floor).
    @property
    def net_secure_mean_ns(self) -> float | None:
        return _difference(self.secure_mean_ns, self.floor_secure_mean_ns)

    @property
    def net_unsecure_mean_ns(self) -> float | None:
        return _difference(self.unsecure_mean_ns, self.floor_unsecure_mean_ns)


def _difference(raw: float | None, floor: float | None) -> float | None:
    return None if raw is None or floor is None else raw - floor


class BenchSample(models.Model):
    """One repetition of one operation in a cipher benchmark; written only by COPY."""

    pk = models.CompositePrimaryKey(
        "run_device_id", "mechanism", "operation", "data_bytes", "repetition"
    )
    # No database foreign key, as MessageRecord (COPY speed).
    run_device = models.ForeignKey(
        RunDevice, on_delete=models.CASCADE, related_name="samples", db_constraint=False
    )
    mechanism = models.CharField(max_length=40)
    operation = models.CharField(max_length=8, choices=BenchOperation.choices)
    data_bytes = models.BigIntegerField()
    repetition = models.IntegerField()
    wall_ns = models.BigIntegerField()
    cpu_ns = models.BigIntegerField()
    peak_rss_kb = models.BigIntegerField()
    # Packets completed in the window (throughput); NULL for cipher benchmarks.
    packets = models.BigIntegerField(null=True, blank=True)
    # Back-to-back calls the cipher-bench repetition timed; wall_ns and cpu_ns are then
    # their mean per call. NULL: throughput windows, and samples of agents before it (one).
    calls = models.IntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(operation__in=BenchOperation.values), name="sample_operation_known"
            ),
            models.CheckConstraint(
                condition=Q(wall_ns__gte=0, cpu_ns__gte=0, data_bytes__gte=0, repetition__gte=0),
                name="sample_non_negative",
            ),
            models.CheckConstraint(
                condition=Q(calls__isnull=True) | Q(calls__gte=1), name="sample_calls_positive"
            ),
        ]


class BenchStatistic(models.Model):
    """Summary of one (device, mechanism, operation, data size) of a cipher benchmark.

    Variance and standard deviation are the sample ones (n-1), as the paper reports them.
    """

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="bench_statistics")
    run_device = models.ForeignKey(RunDevice, on_delete=models.CASCADE, related_name="+")
    mechanism = models.CharField(max_length=40)
    operation = models.CharField(max_length=8, choices=BenchOperation.choices)
    data_bytes = models.BigIntegerField()
    n = models.PositiveIntegerField()
    wall_mean_ns = models.FloatField()
    wall_var_ns2 = models.FloatField(null=True)
    wall_std_ns = models.FloatField(null=True)
    cpu_mean_ns = models.FloatField()
    peak_rss_kb = models.BigIntegerField()
    # Throughput: mean and sample std of packets per second over the windows.
    rate_mean = models.FloatField(null=True)
    rate_std = models.FloatField(null=True)
    # Calls per repetition (cipher bench; wall/cpu are means per call); NULL: one call
    # (older agents) or throughput windows.
    calls = models.IntegerField(null=True)
