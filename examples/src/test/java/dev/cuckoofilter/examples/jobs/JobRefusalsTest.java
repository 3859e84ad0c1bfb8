package dev.cuckoofilter.examples.jobs;

import static dev.cuckoofilter.examples.ChildProcess.inProcess;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.examples.ChildProcess.Result;
import dev.cuckoofilter.examples.cli.CuckooCli;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.store.FilterStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The jobs, in this JVM's Spark session, on inputs and locations that cannot work: each is refused with
 * exit code 2 and one line naming the option and the problem, and a job never writes over what it reads
 * (a filter store, an input dataset) or into a directory that is not a filter location.
 */
class JobRefusalsTest extends ShopDataJobTest {
  private static List<String> names(String directory) throws IOException {
    try (Stream<Path> files = Files.list(Path.of(directory))) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void keysThatDoNotFitTheExpectedItemsAreAUsageError() {
    Result tooFew = inProcess(new BuildFilterJob(), "--input", customers, "--keys", "id", "--location", location("small"),
        "--expected-items", "10");
    assertRefused("build-filter: error: --expected-items 10 is too small: --input " + customers + " has more distinct "
        + "keys than a filter sized for that many holds; raise it, or leave it out", tooFew);
    assertFalse(Files.exists(Path.of(location("small"))), "nothing was published");
  }

  @Test
  void anInputFileNotOfTheFormatIsAUsageError() throws IOException {
    Path text = Files.writeString(dir.resolve("not-parquet.txt"), "id\n1\n2\n");
    Result notParquet = inProcess(new BuildFilterJob(), "--input", text.toString(), "--keys", "id", "--location",
        location("never"));
    assertRefused("build-filter: error: --input " + text + ": cannot read it as parquet: ", notParquet);
    assertTrue(notParquet.stderr().contains("is not a Parquet file"), notParquet.describe());
  }

  /**
   * Spark reads a Parquet dataset's schema from one of its files: a file not of the format among the others was found
   * only by the Spark job, which failed with exit code 1 and a stack trace (cuckoo build: exit code 2), and rerunning
   * the job failed alike.
   */
  @Test
  void aFileNotOfTheFormatAmongGoodOnesIsAUsageError() throws IOException {
    String mixed = dir.resolve("mixed").toString();
    spark.read().parquet(customers).coalesce(1).write().parquet(mixed);
    Path bad = Files.writeString(Path.of(mixed, "part-zzzz.parquet"), "not a Parquet file at all");
    Result built = inProcess(new BuildFilterJob(), "--input", mixed, "--keys", "id", "--location", location("mixed"));
    assertRefused("build-filter: error: cannot read an input file: file:" + bad + " is not a Parquet file", built);
    assertFalse(Files.exists(Path.of(location("mixed"))), "nothing was published");

    published("mixed-join");
    Result joined = inProcess(new PruneJoinJob(), "--location", location("mixed-join"), "--input", orders, "--keys",
        "customer_id", "--join-with", mixed, "--join-keys", "id", "--output", dir.resolve("mixed-joined").toString());
    assertRefused("prune-join: error: cannot read an input file: file:" + bad + " is not a Parquet file", joined);

    String mixedOrc = dir.resolve("mixed-orc").toString();
    spark.read().parquet(customers).coalesce(1).write().orc(mixedOrc);
    Path badOrc = Files.writeString(Path.of(mixedOrc, "part-zzzz.orc"), "not an ORC file at all");
    Result fromOrc = inProcess(new BuildFilterJob(), "--input", mixedOrc, "--format", "orc", "--keys", "id",
        "--location", location("mixed-orc"));
    // Spark reads the ORC schema from the files in their listing's order: the bad file is found there or by the job
    assertRefused("build-filter: error: ", fromOrc);
    assertTrue(fromOrc.stderr().contains("Malformed ORC file file:" + badOrc), fromOrc.describe());
  }

  /**
   * A location records its key columns by name, and update-filter and prune-join read the columns of those names.
   * build-filter --keys s.x (a field of the struct column s) published the key column x: updates then hashed the
   * top-level column x, another column, and every key they added was missing from the filter (150 of 150 keys).
   * saveTo refuses such keys; build-filter now does too, before the build.
   */
  @Test
  void aStructFieldKeyIsRefusedBeforeTheBuild() {
    String nested = dir.resolve("nested").toString();
    spark.sql("SELECT named_struct('x', id) AS s, id + 1000000 AS x FROM range(0, 100)").write().parquet(nested);
    Result built = inProcess(new BuildFilterJob(), "--input", nested, "--keys", "s.x", "--location", location("nested"));
    assertRefused("build-filter: error: key s.x of --input " + nested + " is not a column", built);
    assertTrue(built.stdout().isEmpty(), "refused before building: " + built.describe());
    assertFalse(Files.exists(Path.of(location("nested"))), "nothing was published");
  }

  /**
   * With --format table a dataset is a table name: a path given by mistake, or a name Spark cannot parse, failed
   * with Spark's ParseException, exit code 1 and a stack trace, as if the job had broken.
   */
  @Test
  void aTableNameSparkCannotParseIsAUsageError() throws IOException {
    Result path = inProcess(new BuildFilterJob(), "--input", customers, "--format", "table", "--keys", "id",
        "--location", location("never"));
    assertRefused("build-filter: error: --input " + customers + ": not a table name: ", path);
    assertEquals(1, path.stderr().lines().count(), path.describe());
    assertFalse(Files.exists(Path.of(location("never"))), "nothing was published");

    FilterStore store = published("tables");
    Result spaced = inProcess(new PruneJoinJob(), "--location", store.location(), "--input", orders, "--keys",
        "customer_id", "--join-with", "sales customers", "--join-format", "table", "--join-keys", "id", "--output",
        dir.resolve("never-written").toString());
    assertRefused("prune-join: error: --join-with sales customers: not a table name: ", spaced);
  }

  @Test
  void locationsThatCannotBeFilterLocationsAreRefusedBeforeTheBuild() throws IOException {
    Path file = Files.writeString(dir.resolve("a-file"), "not a filter location");
    Result isAFile = inProcess(new BuildFilterJob(), "--input", customers, "--keys", "id", "--location", file.toString());
    assertRefused("build-filter: error: --location " + file + ": file:" + file + " is a file, not a filter location",
        isAFile);
    assertTrue(isAFile.stdout().isEmpty(), "refused before building: " + isAFile.describe());

    Result noFileSystem = inProcess(new BuildFilterJob(), "--input", customers, "--keys", "id", "--location",
        "nosuchfs://host/filters/x");
    assertRefused("build-filter: error: --location nosuchfs://host/filters/x: no file system serves its scheme",
        noFileSystem);

    // --input and --location swapped: the store's directories are not added to the dataset
    List<String> before = names(orders);
    Result dataset = inProcess(new BuildFilterJob(), "--input", customers, "--keys", "id", "--location", orders);
    assertRefused("build-filter: error: --location " + orders + ": file:" + orders + " holds other files than a filter "
        + "location's versions/ and data/", dataset);
    assertEquals(before, names(orders));

    Result update = inProcess(new UpdateFilterJob(), "--location", file.toString(), "--before", customers, "--after", customers);
    assertRefused("update-filter: error: --location " + file + ": file:" + file + " is a file", update);
    assertEquals("not a filter location", Files.readString(file));

    // below a file: the location cannot be created; this was found by the publish, once the build was done (exit 1)
    Result belowFile = inProcess(new BuildFilterJob(), "--input", customers, "--keys", "id", "--location",
        file + "/filters/x");
    assertRefused("build-filter: error: --location " + file + "/filters/x: file:" + file + " is a file, so the "
        + "location cannot be created below it", belowFile);
    assertTrue(belowFile.stdout().isEmpty(), "refused before building: " + belowFile.describe());
    Result toolBelowFile = inProcess(new CuckooCli(), "build", file + "/x", "--input", customers, "--keys", "id");
    assertRefused("cuckoo build: error: location " + file + "/x: file:" + file + " is a file", toolBelowFile);
    assertTrue(toolBelowFile.stdout().isEmpty(), "refused before building: " + toolBelowFile.describe());
    assertEquals("not a filter location", Files.readString(file));
  }

  /** An --output below a file cannot be written: Spark failed to set up the write, exit code 1 and a stack trace. */
  @Test
  void anOutputBelowAFileIsAUsageError() throws IOException {
    published("output-below-file");
    Path file = Files.writeString(dir.resolve("output-file"), "not a directory");
    Result r = inProcess(new PruneJoinJob(), "--location", location("output-below-file"), "--input", orders, "--keys",
        "customer_id", "--join-with", customers, "--join-keys", "id", "--output", file + "/joined");
    assertRefused("prune-join: error: --output " + file + "/joined: file:" + file + " is a file, so the output cannot "
        + "be created below it", r);
  }

  @Test
  void pruneJoinNeverWritesOverTheFilterStoreOrItsInputs() throws IOException {
    FilterStore store = published("prune");
    String loc = location("prune");
    List<String> storeFiles = names(loc);
    String[] common = {"--location", loc, "--input", orders, "--keys", "customer_id", "--join-with", customers,
        "--join-keys", "id"};

    Result overStore = inProcess(new PruneJoinJob(), args(common, "--output", loc, "--mode", "overwrite"));
    assertRefused("prune-join: error: --output " + loc + " overlaps --location " + loc + ": writing the join there "
        + "would damage what the job reads (the filter store); choose another --output", overStore);
    Result overParent = inProcess(new PruneJoinJob(), args(common, "--output", dir.resolve("filters").toString(), "--mode",
        "overwrite"));
    assertRefused("prune-join: error: --output " + dir.resolve("filters") + " overlaps --location " + loc, overParent);
    Result intoStore = inProcess(new PruneJoinJob(), args(common, "--output", loc + "/joined", "--mode", "append"));
    assertRefused("prune-join: error: --output " + loc + "/joined overlaps --location " + loc, intoStore);
    assertEquals(storeFiles, names(loc));
    assertEquals(1, store.readLatest().version().version());

    List<String> orderFiles = names(orders);
    Result overInput = inProcess(new PruneJoinJob(), args(common, "--output", orders, "--mode", "overwrite"));
    assertRefused("prune-join: error: --output " + orders + " overlaps --input " + orders, overInput);
    Result intoInput = inProcess(new PruneJoinJob(), args(common, "--output", orders + "/joined"));
    assertRefused("prune-join: error: --output " + orders + "/joined overlaps --input " + orders, intoInput);
    Result overGlob = inProcess(new PruneJoinJob(), "--location", loc, "--input", orders + "/*.parquet", "--keys", "customer_id",
        "--join-with", customers, "--join-keys", "id", "--output", orders, "--mode", "overwrite");
    assertRefused("prune-join: error: --output " + orders + " overlaps --input " + orders + "/*.parquet", overGlob);
    Result overJoinWith = inProcess(new PruneJoinJob(), args(common, "--output", customers, "--mode", "overwrite"));
    assertRefused("prune-join: error: --output " + customers + " overlaps --join-with " + customers, overJoinWith);
    assertEquals(orderFiles, names(orders));
    assertEquals(2000, spark.read().parquet(orders).count());
    assertEquals(500, spark.read().parquet(customers).count());

    // a separate output is written
    Result joined = inProcess(new PruneJoinJob(), args(common, "--output", dir.resolve("joined").toString()));
    assertEquals(ExitCodes.OK, joined.exitCode(), joined.describe());
    assertEquals(1000, spark.read().parquet(dir.resolve("joined").toString()).count());
  }

  /**
   * The overlap check compared paths as spelled: an --output reached through a local symbolic link to the filter
   * location or an input passed it, and the join was written into the filter store (which publishing then refused as
   * a directory of other files) or appended to the input dataset.
   */
  @Test
  void pruneJoinFollowsSymbolicLinksToTheFilterStoreAndItsInputs() throws IOException {
    published("linked");
    String loc = location("linked");
    List<String> storeFiles = names(loc);
    Path storeLink = Files.createSymbolicLink(dir.resolve("store-link"), Path.of(loc));
    Path filtersLink = Files.createSymbolicLink(dir.resolve("filters-link"), dir.resolve("filters"));
    Path ordersLink = Files.createSymbolicLink(dir.resolve("orders-link"), Path.of(orders));
    String[] common = {"--location", loc, "--input", orders, "--keys", "customer_id", "--join-with", customers,
        "--join-keys", "id"};

    Result intoStore = inProcess(new PruneJoinJob(), args(common, "--output", storeLink + "/joined"));
    assertRefused("prune-join: error: --output " + storeLink + "/joined overlaps --location " + loc, intoStore);
    Result throughParent = inProcess(new PruneJoinJob(), args(common, "--output", filtersLink + "/linked", "--mode",
        "append"));
    assertRefused("prune-join: error: --output " + filtersLink + "/linked overlaps --location " + loc, throughParent);
    assertEquals(storeFiles, names(loc));
    List<String> orderFiles = names(orders);
    Result intoInput = inProcess(new PruneJoinJob(), args(common, "--output", ordersLink.toString(), "--mode",
        "append"));
    assertRefused("prune-join: error: --output " + ordersLink + " overlaps --input " + orders, intoInput);
    assertEquals(orderFiles, names(orders));
    // and a location given through a link is the directory it leads to
    Result linkedLocation = inProcess(new PruneJoinJob(), "--location", storeLink.toString(), "--input", orders,
        "--keys", "customer_id", "--join-with", customers, "--join-keys", "id", "--output", loc + "/joined");
    assertRefused("prune-join: error: --output " + loc + "/joined overlaps --location " + storeLink, linkedLocation);
    assertEquals(storeFiles, names(loc));
  }

  /**
   * An --output-format that cannot hold a column of the join (CSV and a struct column) failed at the write with
   * Spark's analysis error, exit code 1 and a stack trace; nothing had been written.
   */
  @Test
  void anOutputFormatThatCannotHoldTheJoinIsAUsageError() throws IOException {
    published("csv");
    String withStruct = dir.resolve("customers-struct").toString();
    spark.sql("SELECT id, named_struct('name', concat('c-', id)) AS info FROM range(0, 100)").write().parquet(withStruct);
    String joined = dir.resolve("joined-csv").toString();

    Result r = inProcess(new PruneJoinJob(), "--location", location("csv"), "--input", orders, "--keys", "customer_id",
        "--join-with", withStruct, "--join-keys", "id", "--output", joined, "--output-format", "csv");

    assertRefused("prune-join: error: --output " + joined + ": cannot write the join as csv: ", r);
    assertTrue(r.stderr().contains("info"), r.describe());
    assertFalse(Files.exists(Path.of(joined)));
  }

  /**
   * With --format table the overlap check compared nothing: an --output in a table's directory (or a view's) passed
   * it, and --mode append wrote the join into the table, whose readers then read the join's files as its rows.
   */
  @Test
  void pruneJoinNeverWritesIntoATableItReads() throws IOException {
    published("tables-out");
    Path ordersTable = dir.resolve("orders-table");
    spark.read().parquet(orders).write().parquet(ordersTable.toString());
    spark.sql("CREATE TABLE orders_for_overlap USING parquet LOCATION '" + ordersTable.toUri() + "'");
    spark.read().parquet(customers).createOrReplaceTempView("customers_for_overlap");
    List<String> tableFiles = names(ordersTable.toString());
    try {
      Result intoTable = inProcess(new PruneJoinJob(), "--location", location("tables-out"), "--format", "table",
          "--input", "orders_for_overlap", "--keys", "customer_id", "--join-with", "customers_for_overlap",
          "--join-keys", "id", "--output", ordersTable.toString(), "--mode", "append");
      assertRefused("prune-join: error: --output " + ordersTable + " overlaps --input orders_for_overlap", intoTable);
      Result intoView = inProcess(new PruneJoinJob(), "--location", location("tables-out"), "--format", "table",
          "--input", "orders_for_overlap", "--keys", "customer_id", "--join-with", "customers_for_overlap",
          "--join-keys", "id", "--output", customers + "/joined");
      assertRefused("prune-join: error: --output " + customers + "/joined overlaps --join-with customers_for_overlap",
          intoView);
      assertEquals(tableFiles, names(ordersTable.toString()));
      assertEquals(2000, spark.table("orders_for_overlap").count());
    } finally {
      spark.sql("DROP TABLE orders_for_overlap");
    }
  }

  /**
   * A partitioned catalog table reads a partition added with ALTER TABLE ... ADD PARTITION ... LOCATION from that
   * location, outside the table's directory, which the overlap check did not compare (it compared the table's
   * location): --output there passed it (exit code 0), and --mode append wrote the join's files into the partition:
   * the table counted 3,000 rows instead of its 2,000 once refreshed.
   */
  @Test
  void pruneJoinNeverWritesIntoAPartitionOfATableItReads() throws IOException {
    published("partition-out");
    Path tableDir = dir.resolve("orders-partitioned");
    Path elsewhere = dir.resolve("orders-day-7");
    spark.read().parquet(orders).write().parquet(elsewhere.toString());
    spark.sql("CREATE TABLE orders_partitioned (order_id BIGINT, customer_id BIGINT, day INT) USING parquet "
        + "PARTITIONED BY (day) LOCATION '" + tableDir.toUri() + "'");
    spark.sql("ALTER TABLE orders_partitioned ADD PARTITION (day = 7) LOCATION '" + elsewhere.toUri() + "'");
    spark.read().parquet(customers).createOrReplaceTempView("customers_for_partition");
    List<String> partitionFiles = names(elsewhere.toString());
    try {
      assertEquals(2000, spark.table("orders_partitioned").count());
      Result r = inProcess(new PruneJoinJob(), "--location", location("partition-out"), "--format", "table",
          "--input", "orders_partitioned", "--keys", "customer_id", "--join-with", "customers_for_partition",
          "--join-keys", "id", "--output", elsewhere.toString(), "--mode", "append");
      assertRefused("prune-join: error: --output " + elsewhere + " overlaps --input orders_partitioned", r);
      assertEquals(partitionFiles, names(elsewhere.toString()));
      spark.catalog().refreshTable("orders_partitioned");
      assertEquals(2000, spark.table("orders_partitioned").count());
    } finally {
      spark.sql("DROP TABLE orders_partitioned");
    }
  }

  /**
   * An --output its file system refuses (a local path with a host, which Hadoop's local file system does not take)
   * failed the check that it does not exist yet with "Wrong FS", exit code 1 and a stack trace.
   */
  @Test
  void anOutputItsFileSystemRefusesIsAUsageError() throws IOException {
    published("wrong-fs");
    String output = "file://localhost" + dir.resolve("joined-wrong-fs");
    for (String mode : List.of("error", "overwrite")) {
      Result r = inProcess(new PruneJoinJob(), "--location", location("wrong-fs"), "--input", orders, "--keys",
          "customer_id", "--join-with", customers, "--join-keys", "id", "--output", output, "--mode", mode);
      assertRefused("prune-join: error: --output " + output + ": cannot access the path: Wrong FS: ", r);
    }
  }

  private static String[] args(String[] common, String... more) {
    String[] all = new String[common.length + more.length];
    System.arraycopy(common, 0, all, 0, common.length);
    System.arraycopy(more, 0, all, common.length, more.length);
    return all;
  }
}
