package dev.cuckoofilter.spark.expressions;

import java.io.Serializable;
import org.apache.spark.util.LongAccumulator;

/**
 * Rows a probe saw and let through, as two named accumulators (visible in the Spark UI and readable on
 * the driver after an action). Like all accumulators updated in transformations, a retried task may count
 * its rows again.
 */
public final class PruneMetrics implements Serializable {
  private static final long serialVersionUID = 1L;
  private final LongAccumulator rowsIn;
  private final LongAccumulator rowsOut;

  public PruneMetrics(LongAccumulator rowsIn, LongAccumulator rowsOut) {
    this.rowsIn = rowsIn;
    this.rowsOut = rowsOut;
  }

  /** Counts one probed row; called by generated code, branch-free. */
  public void count(boolean kept) {
    rowsIn.add(1L);
    rowsOut.add(kept ? 1L : 0L);
  }

  public long rowsIn() {
    return rowsIn.sum();
  }

  public long rowsOut() {
    return rowsOut.sum();
  }
}
