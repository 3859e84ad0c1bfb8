package dev.cuckoofilter.spark.update;

import java.util.Objects;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * A change to a dataset, in one of two forms: the rows added and the rows deleted together with the
 * dataset as it is after the change (needed to know whether a deleted key still has other rows), or an
 * old and a new snapshot of the dataset.
 */
public final class ChangeSet {
  final Dataset<Row> added;
  final Dataset<Row> deleted;
  final Dataset<Row> current;
  final Dataset<Row> before;

  private ChangeSet(Dataset<Row> added, Dataset<Row> deleted, Dataset<Row> current, Dataset<Row> before) {
    this.added = added;
    this.deleted = deleted;
    this.current = current;
    this.before = before;
  }

  /**
   * Rows added and rows deleted (either may be empty) and the dataset after the change. A key leaves
   * the filter only if {@code current} has no row with it any more.
   */
  public static ChangeSet of(Dataset<Row> added, Dataset<Row> deleted, Dataset<Row> current) {
    return new ChangeSet(Objects.requireNonNull(added, "added"), Objects.requireNonNull(deleted, "deleted"),
        Objects.requireNonNull(current, "current"), null);
  }

  /** The change between two snapshots of the dataset. */
  public static ChangeSet between(Dataset<Row> before, Dataset<Row> after) {
    return new ChangeSet(null, null, Objects.requireNonNull(after, "after"), Objects.requireNonNull(before, "before"));
  }

  /** The same change with {@code f} applied to each of its datasets. */
  ChangeSet map(java.util.function.UnaryOperator<Dataset<Row>> f) {
    return new ChangeSet(added == null ? null : f.apply(added), deleted == null ? null : f.apply(deleted),
        f.apply(current), before == null ? null : f.apply(before));
  }

  boolean isSnapshots() {
    return before != null;
  }
}
