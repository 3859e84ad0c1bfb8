package dev.cuckoofilter.spark.update;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkTestSession;
import dev.cuckoofilter.spark.store.FilterStore;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stored {@code float} key updated with a change whose key column is {@code double} (a JSON or CSV change feed,
 * whose schema inference reads 0.1 as a double; a DataFrame of the rows appended to the table): Spark stores such a
 * value in the table's {@code float} column as the nearest float, which the build hashed and which probes of the
 * table hash, not the double as given.
 */
class FloatKeyChangesTest {
  static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.local();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** The rows of a table of float keys {@code from/10} to {@code (to-1)/10}. */
  private static Dataset<Row> table(long from, long to) {
    return spark.range(from, to).selectExpr("CAST(id / 10.0 AS FLOAT) AS k", "id AS row");
  }

  /** The same rows as a change feed gives them: the keys as doubles. */
  private static Dataset<Row> feed(long from, long to) {
    return spark.range(from, to).selectExpr("CAST(id / 10.0 AS DOUBLE) AS k", "id AS row");
  }

  @Test
  void doubleKeysOfAChangeToAFloatKeyAreHashedAsTheFloatsTheTableHolds(@TempDir Path dir) throws Exception {
    FilterStore store = FilterStore.open(dir.resolve("floats").toUri().toString(), spark);
    CuckooFilters.builder(table(0, 1000)).keys("k").expectedItems(5000).fpp(0.001).build().saveTo(store, "built");

    // 200 rows appended and 100 deleted; the table after the change holds float keys.
    Dataset<Row> after = table(100, 1200);
    FilterUpdater.update(store, ChangeSet.of(feed(1000, 1200), feed(0, 100), after), "feed");
    CuckooFilter updated = store.readLatest().filter();

    CuckooFilter fresh = CuckooFilters.builder(after).keys("k").expectedItems(5000).fpp(0.001).build().filter();
    AtomicLong missing = new AtomicLong();
    fresh.forEachEntryCode(code -> missing.addAndGet(updated.containsEntryCode(code) ? 0 : 1));
    assertEquals(0, missing.get(), "entries of keys the table holds missing from the updated filter");
    assertArrayEquals(fresh.toByteArray(), updated.toByteArray());

    // And back, as two snapshots in the feed's types.
    FilterUpdater.update(store, ChangeSet.between(feed(100, 1200), feed(0, 1000)), "back");
    assertArrayEquals(CuckooFilters.builder(table(0, 1000)).keys("k").expectedItems(5000).fpp(0.001).build().filter()
        .toByteArray(), store.readLatest().filter().toByteArray());
  }
}
