package dev.cuckoofilter.examples.jobs;

import static dev.cuckoofilter.examples.ChildProcess.inProcess;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.examples.ChildProcess.Result;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.examples.common.Publishing;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.store.FilterMetadata;
import dev.cuckoofilter.spark.store.FilterStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The jobs, in this JVM's Spark session, against a location whose state forbids the publish: an
 * update on a base version that is no longer the latest, and a build with other key columns than the
 * location's. Both are refused before any work, naming the location and the versions or columns. Also
 * what an update publishes: the false-positive rate of its base version's metadata.
 */
class PublishChecksTest extends ShopDataJobTest {
  private static String added;

  @BeforeAll
  static void writeData() {
    added = dir.resolve("added").toString();
    spark.range(500, 600).selectExpr("id", "concat('c-', id) AS name").write().parquet(added);
  }

  @Test
  void anUpdateOnABaseVersionThatIsNoLongerTheLatestFailsBeforeAnyWork() throws IOException {
    FilterStore store = published("moved-on");
    CuckooFilter other = store.readLatest().filter();
    other.add(-1L);
    List<StructField> keys = store.readLatest().metadata().keyColumns();
    store.publish(other, FilterMetadata.of(other, keys, "another writer", 1));

    Result stale = inProcess(new UpdateFilterJob(), "--location", location("moved-on"), "--base-version", "1", "--added", added,
        "--current", customers);
    assertEquals(ExitCodes.CONFLICT, stale.exitCode(), stale.describe());
    assertTrue(stale.stderr().startsWith("update-filter: error: location " + store.location() + ": version 2 was "
        + "published concurrently by another writer (retry on version 2); --base-version 1 is not the latest version of "
        + store.location() + " any more (the latest is 2), so the change was not applied"), stale.describe());
    assertTrue(stale.stderr().contains("Nothing was published."), stale.describe());
    assertFalse(stale.stderr().contains("\tat "), "no stack trace: " + stale.describe());
    assertEquals("", stale.stdout(), "the update was not computed: " + stale.describe());
    assertEquals(List.of(1L, 2L), store.versionNumbers());

    // Checked before the inputs are even read.
    Result missingInput = inProcess(new UpdateFilterJob(), "--location", location("moved-on"), "--base-version", "1",
        "--added", dir.resolve("no-such-dataset").toString(), "--current", customers);
    assertEquals(ExitCodes.CONFLICT, missingInput.exitCode(), missingInput.describe());

    // A base version that is still the latest is updated and published as before.
    Result current = inProcess(new UpdateFilterJob(), "--location", location("moved-on"), "--base-version", "2", "--added",
        added, "--current", customers);
    assertEquals(ExitCodes.OK, current.exitCode(), current.describe());
    assertEquals(3, store.readLatest().version().version());
    assertTrue(store.readLatest().filter().mightContain(550L));

    // A base version that does not exist yet stays a usage error.
    Result future = inProcess(new UpdateFilterJob(), "--location", location("moved-on"), "--base-version", "9", "--added",
        added, "--current", customers);
    assertEquals(ExitCodes.USAGE, future.exitCode(), future.describe());
    assertTrue(future.stderr().contains("--base-version 9: " + store.location() + " has no version 9 (its versions: 1, 2, 3)"),
        future.describe());
    assertTrue(future.stdout().isEmpty(), future.describe());
  }

  /**
   * An update's new version records the false-positive rate its base version's metadata records, as
   * {@code FilterUpdater.update(FilterStore, ...)} does, not the rate the filter itself was sized for.
   */
  @Test
  void anUpdateRecordsTheRateOfItsBaseVersionsMetadata() throws IOException {
    FilterStore store = FilterStore.open(location("rate"), spark);
    SparkCuckooFilter built = CuckooFilters.builder(spark.read().parquet(customers)).keys("id").expectedItems(1000)
        .fpp(0.01).build();
    double recorded = 0.001;
    FilterMetadata own = FilterMetadata.of(built.filter(), built.keyFields(), "customers", FilterMetadata.NO_PARENT);
    assertEquals(0.01, own.fpp(), 0);
    store.publish(built.filter(), new FilterMetadata(own.keyColumns(), recorded, own.itemCount(), own.capacity(),
        own.source(), own.createdAt(), own.parentVersion(), own.formatVersion(), own.properties()));
    String current = dir.resolve("customers-and-added").toString();
    spark.read().parquet(customers).union(spark.read().parquet(added)).write().parquet(current);

    Result update = inProcess(new UpdateFilterJob(), "--location", location("rate"), "--added", added, "--current",
        current);
    assertEquals(ExitCodes.OK, update.exitCode(), update.describe());
    assertTrue(update.stdout().contains(", updated from version 1"), "not rebuilt: " + update.describe());
    FilterMetadata latest = store.readLatest().metadata();
    assertEquals(2, store.readLatest().version().version());
    assertEquals(recorded, latest.fpp(), 0);
    assertEquals(0.01, store.readLatest().filter().parameters().targetFpp(), 0);
    assertEquals("update-filter", latest.properties().get(Publishing.CREATED_BY));
  }

  @Test
  void aBuildWithOtherKeyColumnsIsRefusedUnlessItReKeysTheLocation() throws IOException {
    FilterStore store = published("rekey");
    Result otherKeys = inProcess(new BuildFilterJob(), "--input", orders, "--keys", "customer_id", "--location",
        location("rekey"));
    assertEquals(ExitCodes.USAGE, otherKeys.exitCode(), otherKeys.describe());
    assertTrue(otherKeys.stderr().startsWith("build-filter: error: location " + store.location() + ": version 2 would "
        + "have the key columns (customer_id bigint) but version 1, the latest, has (id bigint): key column 1 is "
        + "customer_id bigint instead of id bigint. Nothing was published."), otherKeys.describe());
    assertTrue(otherKeys.stderr().contains("--new-keys"), otherKeys.describe());
    assertFalse(otherKeys.stderr().contains("\tat "), "no stack trace: " + otherKeys.describe());
    assertEquals("", otherKeys.stdout(), "refused before the build: " + otherKeys.describe());
    assertEquals(List.of(1L), store.versionNumbers());

    Result otherType = inProcess(new BuildFilterJob(), "--input", customers, "--keys", "name", "--location", location("rekey"));
    assertEquals(ExitCodes.USAGE, otherType.exitCode(), otherType.describe());
    assertTrue(otherType.stderr().contains("key column 1 is name string instead of id bigint"), otherType.describe());

    // The same key columns rebuild the location as before.
    Result rebuild = inProcess(new BuildFilterJob(), "--input", customers, "--keys", "id", "--location", location("rekey"));
    assertEquals(ExitCodes.OK, rebuild.exitCode(), rebuild.describe());
    assertEquals(2, store.readLatest().version().version());

    // Deliberately re-keyed.
    Result rekeyed = inProcess(new BuildFilterJob(), "--input", orders, "--keys", "customer_id", "--location", location("rekey"),
        "--new-keys");
    assertEquals(ExitCodes.OK, rekeyed.exitCode(), rekeyed.describe());
    assertEquals(List.of(DataTypes.createStructField("customer_id", DataTypes.LongType, true)),
        store.readLatest().metadata().keyColumns());
    assertEquals(3, store.readLatest().version().version());
  }

  /**
   * A version whose commit record is there but whose data file is gone is damaged (retention deletes the record
   * first, and never the latest version): the jobs report it with exit code 4 naming the record, as the tool does,
   * not as a version that was removed.
   */
  @Test
  void aVersionWhoseDataFileIsMissingIsDamaged() throws IOException {
    FilterStore store = published("lost-data");
    java.nio.file.Path data;
    try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(Path.of(location("lost-data"),
        "data"))) {
      data = files.filter(p -> p.getFileName().toString().endsWith(".ckf")).findFirst().orElseThrow();
    }
    java.nio.file.Files.delete(data);
    String damaged = "location " + store.location() + ", version 1: file " + store.location()
        + "/versions/00000000000000000001.json is corrupt: the data file it names is missing";

    Result update = inProcess(new UpdateFilterJob(), "--location", location("lost-data"), "--added", added, "--current",
        customers);
    assertEquals(ExitCodes.CORRUPT, update.exitCode(), update.describe());
    assertTrue(update.stderr().startsWith("update-filter: error: " + damaged), update.describe());
    Result base = inProcess(new UpdateFilterJob(), "--location", location("lost-data"), "--base-version", "1", "--added",
        added, "--current", customers);
    assertEquals(ExitCodes.CORRUPT, base.exitCode(), base.describe());
    assertTrue(base.stderr().startsWith("update-filter: error: " + damaged), base.describe());
    assertEquals(List.of(1L), store.versionNumbers());

    for (String load : List.of("broadcast", "auto")) {
      Result prune = inProcess(new PruneJoinJob(), "--location", location("lost-data"), "--input", orders, "--keys",
          "customer_id", "--join-with", customers, "--join-keys", "id", "--load", load, "--output",
          dir.resolve("never-" + load).toString());
      assertEquals(ExitCodes.CORRUPT, prune.exitCode(), prune.describe());
      assertTrue(prune.stderr().startsWith("prune-join: error: " + damaged), prune.describe());
      assertFalse(prune.stderr().contains("\tat "), "no stack trace: " + prune.describe());
    }
  }
}
