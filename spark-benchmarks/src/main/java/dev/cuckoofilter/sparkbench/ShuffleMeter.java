package dev.cuckoofilter.sparkbench;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;

/** Sums shuffle writes (bytes and records) of successful tasks between {@link #reset} and {@link #read}. */
final class ShuffleMeter extends SparkListener {
  private final SparkSession spark;
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong records = new AtomicLong();

  ShuffleMeter(SparkSession spark) {
    this.spark = spark;
    spark.sparkContext().addSparkListener(this);
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    if (end.taskInfo().successful() && end.taskMetrics() != null) {
      bytes.addAndGet(end.taskMetrics().shuffleWriteMetrics().bytesWritten());
      records.addAndGet(end.taskMetrics().shuffleWriteMetrics().recordsWritten());
    }
  }

  void reset() {
    read();
    bytes.set(0);
    records.set(0);
  }

  /** {bytes, records} written since the last reset. */
  long[] read() {
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty(60_000);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(e);
    }
    return new long[] {bytes.get(), records.get()};
  }
}
