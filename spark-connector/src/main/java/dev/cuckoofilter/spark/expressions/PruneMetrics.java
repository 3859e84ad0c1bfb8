package dev.cuckoofilter.spark.expressions;

import java.io.Serializable;
import org.apache.spark.SparkContext;
import org.apache.spark.util.LongAccumulator;

/**
 * Rows a probe saw and let through, as two named accumulators (visible in the Spark UI and readable on
 * the driver after an action). Like all accumulators updated in transformations, a retried task may count
 * its rows again. A probe's metrics are not part of its identity: two probes that differ only in their
 * metrics are equal expressions (so Spark may still reuse an exchange below either).
 */
public final class PruneMetrics implements Serializable {
  private static final long serialVersionUID = 1L;
  private final String name;
  private final LongAccumulator rowsIn;
  private final LongAccumulator rowsOut;

  private PruneMetrics(String name, LongAccumulator rowsIn, LongAccumulator rowsOut) {
    this.name = name;
    this.rowsIn = rowsIn;
    this.rowsOut = rowsOut;
  }

  /** New metrics, registered as the accumulators {@code "<name>: rows in"} and {@code "<name>: rows out"}. */
  public static PruneMetrics register(SparkContext context, String name) {
    return new PruneMetrics(name, context.longAccumulator(name + ": rows in"),
        context.longAccumulator(name + ": rows out"));
  }

  /** Counts one probed row; called by generated code, branch-free. */
  public void count(boolean kept) {
    rowsIn.add(1L);
    rowsOut.add(kept ? 1L : 0L);
  }

  /** What the probe prunes, for example {@code cuckoo runtime filter on f.customer_id}. */
  public String name() {
    return name;
  }

  public long rowsIn() {
    return rowsIn.sum();
  }

  public long rowsOut() {
    return rowsOut.sum();
  }

  @Override
  public String toString() {
    return name + ": " + rowsIn() + " rows in, " + rowsOut() + " rows out";
  }
}
