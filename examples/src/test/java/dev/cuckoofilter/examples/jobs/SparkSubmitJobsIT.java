package dev.cuckoofilter.examples.jobs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.hash.CuckooHash;
import dev.cuckoofilter.examples.ChildProcess;
import dev.cuckoofilter.examples.SparkSubmit;
import dev.cuckoofilter.examples.TestSpark;
import dev.cuckoofilter.examples.common.CommandRunner;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.store.FilterMetadata;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.FilterVersion;
import dev.cuckoofilter.spark.store.StoredFilter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The three jobs submitted through {@code org.apache.spark.deploy.SparkSubmit} with {@code --master local[2]},
 * each in its own JVM, on data this class writes: results are checked against what the test computes in
 * its own Spark session, and bad inputs against the exit code and message.
 */
class SparkSubmitJobsIT {
  /** Customers 0..1999: the small side, whose keys the filters hold. */
  private static final long CUSTOMERS = 2000;
  private static final long EXPECTED_ITEMS = 3000;
  private static final double FPP = 0.001;

  @TempDir
  static Path dir;

  private static SparkSession spark;
  private static SparkSubmit submit;
  private static String customersParquet;

  @BeforeAll
  static void writeData() {
    spark = TestSpark.session();
    submit = new SparkSubmit("local[2]", dir.resolve("logs"));
    Dataset<Row> customers = spark.range(0, CUSTOMERS).selectExpr("id", "concat('customer-', id) AS name",
        "cast(id % 7 AS int) AS region", "array(id, id + 1) AS tags");
    customersParquet = write(customers, "parquet", "customers.parquet");
    write(customers.drop("tags"), "orc", "customers.orc");
    customers.drop("tags").write().option("header", "true").csv(dir.resolve("customers.csv").toString());
    // Orders: every fifth order has a customer; the rest are the rows pruning drops.
    write(spark.range(0, 20_000).selectExpr("id AS order_id", "(id * 7919) % (5 * " + CUSTOMERS + ") AS customer_id",
        "cast(id % 100 AS double) AS amount"), "parquet", "orders.parquet");
    // A change: customers 0..99 leave, 2000..2299 arrive.
    write(spark.range(CUSTOMERS, CUSTOMERS + 300).selectExpr("id", "concat('customer-', id) AS name"), "parquet",
        "added.parquet");
    write(spark.range(0, 100).selectExpr("id", "concat('customer-', id) AS name"), "parquet", "deleted.parquet");
    write(spark.range(100, CUSTOMERS + 300).selectExpr("id", "concat('customer-', id) AS name"), "parquet",
        "current.parquet");
    // A change too large for the filter sized for EXPECTED_ITEMS.
    write(spark.range(CUSTOMERS, 4 * CUSTOMERS).selectExpr("id", "concat('customer-', id) AS name"), "parquet",
        "many-added.parquet");
    write(spark.range(0, 4 * CUSTOMERS).selectExpr("id", "concat('customer-', id) AS name"), "parquet",
        "many-current.parquet");
    write(spark.range(0, 10).selectExpr("cast(id AS string) AS id"), "parquet", "string-ids.parquet");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static String write(Dataset<Row> data, String format, String name) {
    String path = dir.resolve(name).toString();
    data.write().format(format).save(path);
    return path;
  }

  private static String path(String name) {
    return dir.resolve(name).toString();
  }

  /** A filter location in the temporary directory (FilterStore qualifies it as file:/...). */
  private static String location(String name) {
    return dir.resolve("filters").resolve(name).toString();
  }

  private static String qualified(String name) throws Exception {
    return FilterStore.open(location(name), spark).location();
  }

  /** What the Spark build in this JVM makes of the same data with the same sizing. */
  private static byte[] expectedFilter(Dataset<Row> data, String key) {
    return CuckooFilters.builder(data).keys(key).expectedItems(EXPECTED_ITEMS).fpp(FPP).build().filter().toByteArray();
  }

  /** Version 1 of a location, built and published in this JVM. */
  private static FilterStore publishedCustomers(String name) throws Exception {
    FilterStore store = FilterStore.open(location(name), spark);
    SparkCuckooFilter built = CuckooFilters.builder(spark.read().parquet(customersParquet)).keys("id")
        .expectedItems(EXPECTED_ITEMS).fpp(FPP).build();
    store.publish(built.filter(), FilterMetadata.of(built.filter(), built.keyFields(), "test customers",
        FilterMetadata.NO_PARENT));
    return store;
  }

  @Test
  void buildsFromParquetCsvAndOrc() throws Exception {
    ChildProcess.Result parquet = submit.run(BuildFilterJob.class, "--input", customersParquet, "--keys", "id",
        "--location", location("from-parquet"), "--expected-items", "" + EXPECTED_ITEMS, "--fpp", "" + FPP);
    assertEquals(0, parquet.exitCode(), parquet.describe());
    assertTrue(parquet.stdout().contains("published " + qualified("from-parquet") + " version 1"), parquet.describe());
    StoredFilter stored = FilterStore.open(location("from-parquet"), spark).readLatest();
    assertEquals(1, stored.version().version());
    assertArrayEquals(expectedFilter(spark.read().parquet(customersParquet), "id"), stored.filter().toByteArray());
    assertEquals("id", stored.metadata().keyColumns().get(0).name());
    assertEquals("bigint", stored.metadata().keyColumns().get(0).dataType().simpleString());
    assertEquals("build-filter", stored.metadata().properties().get("createdBy"));

    ChildProcess.Result csv = submit.run(BuildFilterJob.class, "--input", path("customers.csv"), "--format", "csv",
        "--read-option", "header=true", "--read-option", "inferSchema=true", "--keys", "name",
        "--location", location("from-csv"), "--expected-items", "" + EXPECTED_ITEMS, "--fpp", "" + FPP);
    assertEquals(0, csv.exitCode(), csv.describe());
    Dataset<Row> csvData = spark.read().option("header", "true").option("inferSchema", "true")
        .csv(path("customers.csv"));
    assertArrayEquals(expectedFilter(csvData, "name"),
        FilterStore.open(location("from-csv"), spark).readLatest().filter().toByteArray());

    // Composite key, sized from the data, on a location that already has a version of the key id: the next
    // version, re-keyed deliberately (without --new-keys the job refuses other key columns, JOBS.md).
    FilterStore orcStore = publishedCustomers("from-orc");
    ChildProcess.Result orc = submit.run(BuildFilterJob.class, "--input", path("customers.orc"), "--format", "ORC",
        "--keys", "region,id", "--location", location("from-orc"), "--headroom", "2", "--new-keys");
    assertEquals(0, orc.exitCode(), orc.describe());
    StoredFilter composite = orcStore.readLatest();
    assertEquals(2, composite.version().version());
    assertEquals(1, composite.metadata().parentVersion());
    assertEquals(List.of("region", "id"), composite.metadata().keyColumns().stream().map(f -> f.name()).toList());
    assertTrue(composite.filter().capacity() >= 2 * CUSTOMERS, composite.filter().toString());
    for (Row r : spark.read().orc(path("customers.orc")).select("region", "id").collectAsList()) {
      assertTrue(composite.filter().mightContainHash(compositeHash(r.getInt(0), r.getLong(1))), r.toString());
    }
  }

  @Test
  void buildsFromATableInProcess() throws Exception {
    spark.read().parquet(customersParquet).createOrReplaceTempView("customers_view");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = CommandRunner.execute(new BuildFilterJob(), new PrintWriter(out), new PrintWriter(err), "--format",
        "table", "--input", "customers_view", "--keys", "id", "--location", location("from-table"),
        "--expected-items", "" + EXPECTED_ITEMS, "--fpp", "" + FPP);
    assertEquals(0, code, out + "\n" + err);
    assertArrayEquals(expectedFilter(spark.table("customers_view"), "id"),
        FilterStore.open(location("from-table"), spark).readLatest().filter().toByteArray());
  }

  @Test
  void updatesFromAChangeSetAsAFreshBuildWould() throws Exception {
    FilterStore store = publishedCustomers("update");
    ChildProcess.Result update = submit.run(UpdateFilterJob.class, "--location", location("update"),
        "--added", path("added.parquet"), "--deleted", path("deleted.parquet"), "--current", path("current.parquet"),
        "--source", "customers, day 2");
    assertEquals(0, update.exitCode(), update.describe());
    assertTrue(update.stdout().matches("(?s).*version 1: updated the filter: \\+\\d+ entries, -\\d+ entries.*"),
        update.describe());
    StoredFilter v2 = store.readLatest();
    assertEquals(2, v2.version().version());
    assertEquals(1, v2.metadata().parentVersion());
    assertEquals("customers, day 2", v2.metadata().source());
    // An update lays the filter out canonically: the same bytes as a build of the new dataset.
    assertArrayEquals(expectedFilter(spark.read().parquet(path("current.parquet")), "id"), v2.filter().toByteArray());
  }

  @Test
  void rebuildsWhenTheChangeOverfillsTheFilterAndSaysSo() throws Exception {
    FilterStore store = publishedCustomers("rebuild");
    CuckooFilter before = store.readLatest().filter();
    ChildProcess.Result update = submit.run(UpdateFilterJob.class, "--location", location("rebuild"),
        "--before", customersParquet, "--after", path("many-current.parquet"));
    assertEquals(0, update.exitCode(), update.describe());
    assertTrue(update.stdout().contains("rebuilt the filter (the new keys exceed the " + EXPECTED_ITEMS),
        update.describe());
    assertTrue(update.stdout().contains(", rebuilt from version 1"), update.describe());
    StoredFilter rebuilt = store.readLatest();
    assertTrue(rebuilt.filter().capacity() > before.capacity() && rebuilt.filter().size() >= 4 * CUSTOMERS * 0.99,
        rebuilt.filter().toString());
    assertEquals(FPP, rebuilt.metadata().fpp()); // rebuilt at the configured false-positive rate
    for (long id = 0; id < 4 * CUSTOMERS; id++) {
      assertTrue(rebuilt.filter().mightContain(id), "id " + id);
    }
  }

  @Test
  void prunesAJoinWithTheStoredFilterWithoutChangingItsResult() throws Exception {
    publishedCustomers("prune");
    String output = path("pruned-join");
    ChildProcess.Result prune = submit.run(PruneJoinJob.class, "--location", location("prune"),
        "--input", path("orders.parquet"), "--keys", "customer_id", "--join-with", customersParquet,
        "--join-keys", "id", "--output", output, "--load", "executors");
    assertEquals(0, prune.exitCode(), prune.describe());
    Dataset<Row> orders = spark.read().parquet(path("orders.parquet"));
    Dataset<Row> customers = spark.read().parquet(customersParquet);
    Dataset<Row> expected = orders.join(customers, orders.col("customer_id").equalTo(customers.col("id")));
    Dataset<Row> actual = spark.read().parquet(output);
    assertEquals(4000, expected.count()); // every fifth order
    assertEquals(0, expected.exceptAll(actual).count() + actual.exceptAll(expected).count());
    Matcher counters = Pattern.compile("probed with (\\d+) rows and kept (\\d+)")
        .matcher(prune.stdout());
    assertTrue(counters.find(), prune.describe());
    assertTrue(Long.parseLong(counters.group(1)) >= 20_000 && Long.parseLong(counters.group(2)) >= 4000,
        prune.describe());

    // An existing output is refused before any work unless --mode overwrite (in this JVM: a quick check).
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exists = CommandRunner.execute(new PruneJoinJob(), new PrintWriter(out), new PrintWriter(err),
        "--location", location("prune"), "--input", path("orders.parquet"), "--keys", "customer_id",
        "--join-with", customersParquet, "--join-keys", "id", "--output", output);
    assertEquals(ExitCodes.USAGE, exists, out + "\n" + err);
    assertEquals("prune-join: error: --output " + output + " already exists; choose another path or --mode "
        + "overwrite\n", err.toString());
  }

  @Test
  void refusesBadInputsNamingTheProblem() throws Exception {
    publishedCustomers("bad-inputs");
    ChildProcess.Result missing = submit.run(BuildFilterJob.class, "--input", path("no-such-dir"), "--keys", "id",
        "--location", location("never"));
    assertEquals(ExitCodes.USAGE, missing.exitCode(), missing.describe());
    assertTrue(missing.stderr().contains("build-filter: error: --input " + path("no-such-dir")
        + ": the input path does not exist"), missing.describe());

    ChildProcess.Result unknownColumn = submit.run(BuildFilterJob.class, "--input", customersParquet, "--keys",
        "customer_no", "--location", location("never"));
    assertEquals(ExitCodes.USAGE, unknownColumn.exitCode(), unknownColumn.describe());
    assertTrue(unknownColumn.stderr().contains("has no column customer_no; its columns are: id bigint, name string"),
        unknownColumn.describe());

    ChildProcess.Result wrongType = submit.run(BuildFilterJob.class, "--input", customersParquet, "--keys", "tags",
        "--location", location("never"));
    assertEquals(ExitCodes.USAGE, wrongType.exitCode(), wrongType.describe());
    assertTrue(wrongType.stderr().contains("key column tags of --input " + customersParquet
        + " has type array<bigint>, which cannot be a filter key"), wrongType.describe());

    ChildProcess.Result badFpp = submit.run(BuildFilterJob.class, "--input", customersParquet, "--keys", "id",
        "--location", location("never"), "--fpp", "1.5");
    assertEquals(ExitCodes.USAGE, badFpp.exitCode(), badFpp.describe());
    assertTrue(badFpp.stderr().contains("--fpp must be between 0 and 1 (exclusive), got 1.5"), badFpp.describe());

    ChildProcess.Result keyTypeMismatch = submit.run(UpdateFilterJob.class, "--location", location("bad-inputs"),
        "--added", path("string-ids.parquet"), "--current", customersParquet);
    assertEquals(ExitCodes.USAGE, keyTypeMismatch.exitCode(), keyTypeMismatch.describe());
    assertTrue(keyTypeMismatch.stderr().contains("key column id of --added " + path("string-ids.parquet")
        + " is string, but the filter at " + qualified("bad-inputs") + " was built on id bigint"),
        keyTypeMismatch.describe());

    assertTrue(Files.notExists(dir.resolve("filters").resolve("never")), "nothing was published");
  }

  @Test
  void aConcurrentUpdateThatLostFailsNamingLocationAndVersion() throws Exception {
    FilterStore store = publishedCustomers("conflict");
    // Another writer publishes version 2 while this job works on version 1.
    CuckooFilter other = store.readLatest().filter();
    other.add(-1L);
    FilterVersion won = store.publish(other, FilterMetadata.of(other, store.readLatest().metadata().keyColumns(),
        "the other writer", 1));
    ChildProcess.Result lost = submit.run(UpdateFilterJob.class, "--location", location("conflict"),
        "--base-version", "1", "--added", path("added.parquet"), "--current", path("current.parquet"));
    assertEquals(ExitCodes.CONFLICT, lost.exitCode(), lost.describe());
    assertTrue(lost.stderr().contains("update-filter: error: location " + store.location() + ": version "
        + won.version() + " was published concurrently by another writer"), lost.describe());
    assertTrue(lost.stderr().contains("Rerun the command to apply it to version 2 of " + store.location()),
        lost.describe());
    assertEquals(List.of(1L, 2L), store.versionNumbers());

    ChildProcess.Result rerun = submit.run(UpdateFilterJob.class, "--location", location("conflict"),
        "--added", path("added.parquet"), "--current", path("current.parquet"));
    assertEquals(0, rerun.exitCode(), rerun.describe());
    assertEquals(3, store.readLatest().version().version());
  }

  /** The hash of the composite key (region int, id bigint), as the connector hashes it (docs/HASHING.md). */
  private static long compositeHash(int region, long id) {
    return CuckooHash.hashLong(id, CuckooHash.hashLong(region, CuckooFilter.DEFAULT_SEED));
  }
}
