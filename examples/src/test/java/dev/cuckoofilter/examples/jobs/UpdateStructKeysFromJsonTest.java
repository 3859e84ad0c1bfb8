package dev.cuckoofilter.examples.jobs;

import static dev.cuckoofilter.examples.ChildProcess.inProcess;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.examples.ChildProcess.Result;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.store.FilterStore;
import org.junit.jupiter.api.Test;

/**
 * update-filter with a JSON change of a struct key column: Spark's JSON schema inference sorts struct fields by
 * name, so the rows of a table of {@code struct<zip: int, city: string>} read back as
 * {@code struct<city: string, zip: bigint>}. FilterUpdater takes such a struct by field name (GUIDE.md, "Incremental
 * updates"); the job must not refuse it as a key of another type.
 */
class UpdateStructKeysFromJsonTest extends SparkJobTest {
  @Test
  void aJsonChangeWhoseStructKeyHasItsFieldsSortedByNameIsApplied() throws Exception {
    String before = dir.resolve("before").toString();
    spark.sql("SELECT named_struct('zip', CAST(id AS INT), 'city', concat('c', id)) AS addr, id FROM range(0, 100)")
        .write().parquet(before);
    String location = location("by-address");
    Result built = inProcess(new BuildFilterJob(), "--input", before, "--keys", "addr", "--location", location,
        "--expected-items", "1000");
    assertEquals(ExitCodes.OK, built.exitCode(), built.describe());

    // The change feed and the table after it, as JSON: the struct's fields come back as city, zip.
    String added = dir.resolve("added-json").toString();
    spark.sql("SELECT named_struct('zip', CAST(id AS INT), 'city', concat('c', id)) AS addr, id FROM range(100, 150)")
        .write().json(added);
    String after = dir.resolve("after-json").toString();
    spark.sql("SELECT named_struct('zip', CAST(id AS INT), 'city', concat('c', id)) AS addr, id FROM range(0, 150)")
        .write().json(after);
    assertEquals("struct<city:string,zip:bigint>", spark.read().json(added).schema().apply("addr").dataType()
        .simpleString());

    Result updated = inProcess(new UpdateFilterJob(), "--format", "json", "--location", location, "--added", added,
        "--current", after);
    assertEquals(ExitCodes.OK, updated.exitCode(), updated.describe());

    CuckooFilter filter = FilterStore.open(location, spark).readLatest().filter();
    String fresh = dir.resolve("after-parquet").toString();
    spark.sql("SELECT named_struct('zip', CAST(id AS INT), 'city', concat('c', id)) AS addr, id FROM range(0, 150)")
        .write().parquet(fresh);
    String freshLocation = location("fresh");
    Result rebuilt = inProcess(new BuildFilterJob(), "--input", fresh, "--keys", "addr", "--location", freshLocation,
        "--expected-items", "1000");
    assertEquals(ExitCodes.OK, rebuilt.exitCode(), rebuilt.describe());
    assertEquals(150, filter.size());
    assertArrayEquals(FilterStore.open(freshLocation, spark).readLatest().filter().toByteArray(), filter.toByteArray());
    assertTrue(updated.stdout().contains("+50 entries"), updated.describe());
  }
}
