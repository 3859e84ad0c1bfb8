package dev.cuckoofilter.spark.expressions;

import java.io.Serializable;
import org.apache.spark.SparkContext;
import org.apache.spark.util.LongAccumulator;

/**
 * What a probe saw and let through, as named accumulators (visible in the Spark UI and readable on the driver
 * after an action): the rows it probed, and the partitions of a partitioned file-source table it chose, when the
 * probe's keys are partition columns of that table. Spark then evaluates the probe as a partition filter, on the
 * driver, once with each partition's values, and not with the rows; {@link #forPartitions()} is the probe's
 * metrics so planned, and counts partitions. The rows of the kept partitions are read without being probed.
 * Like all accumulators updated in transformations, a retried task may count its rows again. A probe's metrics
 * are not part of its identity: two probes that differ only in their metrics are equal expressions (so Spark may
 * still reuse an exchange below either).
 */
public final class PruneMetrics implements Serializable {
  private static final long serialVersionUID = 2L;
  private final String name;
  private final LongAccumulator rowsIn;
  private final LongAccumulator rowsOut;
  private final LongAccumulator partitionsIn;
  private final LongAccumulator partitionsOut;
  /** What {@link #count} adds to: the rows or the partitions accumulators, chosen once, not per row. */
  private final LongAccumulator countedIn;
  private final LongAccumulator countedOut;

  private PruneMetrics(String name, LongAccumulator rowsIn, LongAccumulator rowsOut, LongAccumulator partitionsIn,
      LongAccumulator partitionsOut, boolean partitions) {
    this.name = name;
    this.rowsIn = rowsIn;
    this.rowsOut = rowsOut;
    this.partitionsIn = partitionsIn;
    this.partitionsOut = partitionsOut;
    this.countedIn = partitions ? partitionsIn : rowsIn;
    this.countedOut = partitions ? partitionsOut : rowsOut;
  }

  /**
   * New metrics, registered as the accumulators {@code "<name>: rows in"}, {@code "<name>: rows out"}, {@code
   * "<name>: partitions in"} and {@code "<name>: partitions out"}; {@link #count} counts rows.
   */
  public static PruneMetrics register(SparkContext context, String name) {
    return new PruneMetrics(name, context.longAccumulator(name + ": rows in"),
        context.longAccumulator(name + ": rows out"), context.longAccumulator(name + ": partitions in"),
        context.longAccumulator(name + ": partitions out"), false);
  }

  /**
   * These metrics, counting in {@link #count} the partitions a probe planned as a partition filter of a file scan
   * chooses from (partitions in) and keeps (partitions out). Same accumulators, equal to these metrics.
   */
  public PruneMetrics forPartitions() {
    return countsPartitions() ? this
        : new PruneMetrics(name, rowsIn, rowsOut, partitionsIn, partitionsOut, true);
  }

  /** Whether {@link #count} counts partitions ({@link #forPartitions()}) rather than rows. */
  public boolean countsPartitions() {
    return countedIn == partitionsIn;
  }

  /**
   * Counts one probed row, or one probed partition for {@link #forPartitions()}; called by generated code per row,
   * branch-free.
   */
  public void count(boolean kept) {
    countedIn.add(1L);
    countedOut.add(kept ? 1L : 0L);
  }

  /** What the probe prunes, for example {@code cuckoo runtime filter on f.customer_id}. */
  public String name() {
    return name;
  }

  /** Rows probed (on the executors); a probe planned as a partition filter probes none. */
  public long rowsIn() {
    return rowsIn.sum();
  }

  /** Rows kept. */
  public long rowsOut() {
    return rowsOut.sum();
  }

  /** Partitions of a partitioned file-source table the probe chose from, as a partition filter (on the driver). */
  public long partitionsIn() {
    return partitionsIn.sum();
  }

  /** Partitions kept, whose rows are read without being probed. */
  public long partitionsOut() {
    return partitionsOut.sum();
  }

  /** Equal to the metrics with the same accumulators: a probe's metrics and their {@link #forPartitions()}. */
  @Override
  public boolean equals(Object o) {
    return o instanceof PruneMetrics other && other.rowsIn == rowsIn;
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(rowsIn);
  }

  /**
   * {@code "<name>: N rows in, M rows out"}; when partitions were counted, {@code "<name>: P partitions in, Q
   * partitions out"}, followed by the rows if any were probed too.
   */
  @Override
  public String toString() {
    long pIn = partitionsIn();
    long rIn = rowsIn();
    String rows = rIn + " rows in, " + rowsOut() + " rows out";
    if (pIn == 0) {
      return name + ": " + rows;
    }
    String partitions = pIn + " partitions in, " + partitionsOut() + " partitions out";
    return name + ": " + partitions + (rIn == 0 ? "" : ", " + rows);
  }
}
