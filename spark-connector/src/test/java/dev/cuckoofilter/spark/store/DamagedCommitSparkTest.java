package dev.cuckoofilter.spark.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.SparkTestSession;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A commit record whose metadata does not describe its filter, on the Spark paths: the driver broadcasting the
 * filter and the executors loading it refuse it as {@link FilterStore#read} does, naming the record.
 */
class DamagedCommitSparkTest {
  @TempDir
  static File dir;
  static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.local();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void aCommitRecordWhoseItemCountIsNotItsFiltersIsRefusedByBroadcastsAndExecutors() throws IOException {
    FilterStore store = FilterStore.open(new File(dir, "edited").toURI().toString(), new Configuration());
    CuckooFilter filter = TestFilters.range(0, 500);
    store.publish(filter, TestFilters.metadata(filter, FilterMetadata.NO_PARENT));
    Path commit = store.layout().commitFile(1);
    String original = new String(FilterStoreContract.readAll(store, commit), StandardCharsets.UTF_8);
    String edited = original.replace("\"itemCount\" : 500", "\"itemCount\" : 50000");
    assertTrue(!edited.equals(original));
    FilterStoreContract.overwrite(store, commit, edited.getBytes(StandardCharsets.UTF_8));

    StoredFilterCorruptException broadcast = assertThrows(StoredFilterCorruptException.class,
        () -> store.sparkFilter(spark, 1, true));
    assertEquals(commit.toString(), broadcast.file());
    assertTrue(broadcast.getMessage().contains("itemCount"), broadcast.getMessage());

    Dataset<Row> ids = spark.range(0, 1000, 1, 2).toDF("id");
    SparkCuckooFilter loaded = store.sparkFilter(spark, 1, false);
    Exception e = assertThrows(Exception.class, () -> loaded.prune(ids, "id").count());
    StringBuilder messages = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      messages.append(t).append('\n');
    }
    assertTrue(messages.toString().contains(commit.toString()) && messages.toString().contains("itemCount"),
        messages.toString());
  }
}
