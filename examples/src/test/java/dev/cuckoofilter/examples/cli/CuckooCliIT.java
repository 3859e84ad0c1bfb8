package dev.cuckoofilter.examples.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.EntryCodes;
import dev.cuckoofilter.core.FilterParameters;
import dev.cuckoofilter.core.hash.CuckooHash;
import dev.cuckoofilter.examples.ChildProcess;
import dev.cuckoofilter.examples.TestSpark;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.StoredFilter;
import java.io.RandomAccessFile;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code cuckoo} tool: every subcommand in-process through picocli, and the self-contained jar as
 * separate {@code java -jar} processes. {@code build} is checked byte for byte against the Spark build of
 * the same Parquet files, for every key type Spark reads from Parquet and for composite keys.
 */
class CuckooCliIT {
  private static final long EXPECTED_ITEMS = 4000;
  private static final double FPP = 0.001;

  @TempDir
  static Path dir;

  private static SparkSession spark;

  @BeforeAll
  static void writeData() throws Exception {
    spark = TestSpark.session();
    Dataset<Row> typed = spark.range(0, 3000).selectExpr(
        "id AS l", "cast(id AS int) AS i", "cast(id * 7 AS short) AS s", "cast(id % 128 AS byte) AS b",
        "concat('key-', id, '-\u00fc\u20ac') AS str",
        "date_add(date'1969-12-01', cast(id AS int)) AS d",
        "timestamp_micros(1600000000000000 + id * 1000003) AS ts",
        "cast(timestamp_micros(1600000000000000 - id * 999999937) AS timestamp_ntz) AS ntz",
        "cast(id / 100 - 10 AS decimal(10,2)) AS dec",
        "cast(id * 10000000000000 - 3 + 0.125 AS decimal(25,3)) AS bigdec",
        "id % 2 = 0 AS bool",
        "CASE id WHEN 1 THEN double('-0.0') WHEN 2 THEN double('NaN') WHEN 3 THEN double('Infinity') "
            + "ELSE cast(id / 7.0 AS double) END AS dbl",
        "cast(id / 3 AS float) AS flt",
        "cast(concat('b', id) AS binary) AS bin",
        "CASE WHEN id % 97 = 0 THEN NULL ELSE id END AS sparse",
        "cast(id % 5 AS string) AS region");
    typed.repartition(3).write().parquet(dir.resolve("typed").toString());
    writeWithTimestampType(typed.select("ts", "l"), "INT96", "int96");
    writeWithTimestampType(typed.select("ts", "l"), "TIMESTAMP_MILLIS", "millis");
    writeParquetTypesSparkDoesNotWrite(dir.resolve("parquet-types").resolve("part-0.parquet"));
    spark.range(0, 1000).selectExpr("id").write().parquet(dir.resolve("ids-0-999").toString());
    spark.range(500, 1500).selectExpr("id").write().parquet(dir.resolve("ids-500-1499").toString());
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static void writeWithTimestampType(Dataset<Row> data, String type, String name) {
    spark.conf().set("spark.sql.parquet.outputTimestampType", type);
    try {
      data.write().parquet(dir.resolve(name).toString());
    } finally {
      spark.conf().unset("spark.sql.parquet.outputTimestampType");
    }
  }

  /** Unsigned integers, a fixed-length decimal, an enum and a local-time millisecond timestamp. */
  private static void writeParquetTypesSparkDoesNotWrite(Path file) throws Exception {
    MessageType schema = MessageTypeParser.parseMessageType("message m { required int32 u8 (INTEGER(8,false)); "
        + "required int32 u32 (INTEGER(32,false)); required int64 u64 (INTEGER(64,false)); "
        + "required int32 i16 (INTEGER(16,true)); required fixed_len_byte_array(9) fdec (DECIMAL(20,2)); "
        + "required binary e (ENUM); required int64 ntzm (TIMESTAMP(MILLIS,false)); optional binary raw; }");
    SimpleGroupFactory rows = new SimpleGroupFactory(schema);
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri()))
        .withType(schema).withConf(new Configuration()).build()) {
      for (int k = 0; k < 2000; k++) {
        Group g = rows.newGroup()
            .append("u8", k % 256)
            .append("u32", Integer.MAX_VALUE - 1000 + k) // above 2^31 - 1 from k = 1001: negative as int32
            .append("u64", Long.MAX_VALUE - 1000 + k)    // above 2^63 - 1 likewise
            .append("i16", k - 1000)
            .append("fdec", Binary.fromConstantByteArray(fixedBytes(BigInteger.valueOf(k - 1000).shiftLeft(50), 9)))
            .append("e", "value-" + (k % 10))
            .append("ntzm", 1_600_000_000_000L + k * 86_399_999L);
        if (k % 3 != 0) {
          g.append("raw", Binary.fromConstantByteArray(new byte[] {(byte) k, (byte) (k >> 8), 0, -1}));
        }
        writer.write(g);
      }
    }
  }

  private static byte[] fixedBytes(BigInteger value, int length) {
    byte[] minimal = value.toByteArray();
    byte[] out = new byte[length];
    java.util.Arrays.fill(out, value.signum() < 0 ? (byte) -1 : 0);
    System.arraycopy(minimal, 0, out, length - minimal.length, minimal.length);
    return out;
  }

  private static ChildProcess.Result cuckoo(String... args) {
    return CuckooTool.inProcess(args);
  }

  private static ChildProcess.Result cuckooProcess(String name, String... args) throws Exception {
    return CuckooTool.jar(dir.resolve("logs"), name, args);
  }

  private static String location(String name) {
    return dir.resolve("filters").resolve(name).toString();
  }

  private static StoredFilter latest(String name) throws Exception {
    return FilterStore.open(location(name), spark).readLatest();
  }

  private static void assertOk(ChildProcess.Result r) {
    assertEquals(0, r.exitCode(), r.describe());
  }

  @Test
  void buildGivesTheSparkBuildsBytesForEveryKeyType() throws Exception {
    List<List<String>> keys = new ArrayList<>();
    for (String column : List.of("l", "i", "s", "b", "str", "d", "ts", "ntz", "dec", "bigdec", "bool", "dbl", "flt",
        "bin", "sparse")) {
      keys.add(List.of(column));
    }
    keys.add(List.of("region", "l"));
    keys.add(List.of("str", "d", "dec"));
    keys.add(List.of("ts", "bool", "sparse")); // rows with a null component are left out
    for (List<String> key : keys) {
      assertSameAsSpark(dir.resolve("typed"), key, "typed-" + String.join("-", key));
    }
    assertSameAsSpark(dir.resolve("int96"), List.of("ts"), "int96");
    assertSameAsSpark(dir.resolve("millis"), List.of("ts"), "millis");
    for (String column : List.of("u8", "u32", "u64", "i16", "fdec", "e", "ntzm", "raw")) {
      assertSameAsSpark(dir.resolve("parquet-types"), List.of(column), "parquet-" + column);
    }
  }

  private static void assertSameAsSpark(Path input, List<String> key, String name) throws Exception {
    ChildProcess.Result built = cuckoo("build", location(name), "--input", input.toString(), "--keys",
        String.join(",", key), "--expected-items", "" + EXPECTED_ITEMS, "--fpp", "" + FPP);
    assertOk(built);
    Dataset<Row> data = spark.read().parquet(input.toString());
    SparkCuckooFilter expected = CuckooFilters.builder(data).keys(key.toArray(new String[0]))
        .expectedItems(EXPECTED_ITEMS).fpp(FPP).build();
    StoredFilter actual = latest(name);
    assertArrayEquals(expected.filter().toByteArray(), actual.filter().toByteArray(), name);
    assertEquals(expected.keyFields(), actual.metadata().keyColumns(), name); // Spark's types, names, nullability
    assertEquals("cuckoo build", actual.metadata().properties().get("createdBy"));
  }

  @Test
  void buildSizesForTheDistinctKeysWithoutExpectedItems() throws Exception {
    ChildProcess.Result built = cuckoo("build", location("sized"), "--input", dir.resolve("typed").toString(), "--keys",
        "region", "--headroom", "2");
    assertOk(built);
    assertTrue(built.stdout().contains("read 3000 rows of 3 file(s): 5 distinct keys, 0 null keys left out"),
        built.describe());
    assertEquals(26, latest("sized").filter().parameters().expectedItems()); // 5 x 2 + 16
  }

  @Test
  void buildRefusesWhatSparkCannotReadAsKeysNamingTheColumn() {
    ChildProcess.Result unknown = cuckoo("build", location("never"), "--input", dir.resolve("typed").toString(),
        "--keys", "customer");
    assertEquals(ExitCodes.USAGE, unknown.exitCode(), unknown.describe());
    assertTrue(unknown.stderr().matches("(?s)cuckoo build: error: file:\\S+/typed/part-\\S+\\.parquet has no column "
        + "customer; its columns are: l, i, s, b, str, .*"), unknown.describe());

    ChildProcess.Result missing = cuckoo("build", location("never"), "--input", dir.resolve("nothing").toString(),
        "--keys", "l");
    assertEquals(ExitCodes.USAGE, missing.exitCode(), missing.describe());
    assertTrue(missing.stderr().contains("--input " + dir.resolve("nothing") + ": the path does not exist"),
        missing.describe());

    ChildProcess.Result badFpp = cuckoo("build", location("never"), "--input", dir.resolve("typed").toString(),
        "--keys", "l", "--fpp", "0");
    assertEquals(ExitCodes.USAGE, badFpp.exitCode(), badFpp.describe());
    assertTrue(badFpp.stderr().contains("--fpp must be between 0 and 1 (exclusive), got 0.0"), badFpp.describe());
    assertTrue(Files.notExists(dir.resolve("filters").resolve("never")));
  }

  @Test
  void containsConvertsTextToTheKeyTypes() throws Exception {
    List<String> key = List.of("str", "d", "ts", "dec", "bigdec", "bin");
    assertOk(cuckoo("build", location("lookups"), "--input", dir.resolve("typed").toString(), "--keys",
        String.join(",", key), "--expected-items", "" + EXPECTED_ITEMS, "--fpp", "" + FPP));
    // Present keys, written as text in each type's format: row 1234 and row 7.
    String row1234 = "key-1234-\u00fc\u20ac|1973-04-18|2020-09-13T12:47:14.003702Z|2.34|12339999999999997.125"
        + "|6231323334";
    // A timestamp without an offset is in --time-zone (UTC by default).
    String row7 = "key-7-\u00fc\u20ac|1969-12-08|2020-09-13 12:26:47.000021|-9.93|69999999999997.125|6237";
    // Absent: a row's components, but one changed.
    String shifted = "key-1234-\u00fc\u20ac|1973-04-19|2020-09-13T12:47:14.003702Z|2.34|12339999999999997.125"
        + "|6231323334";
    ChildProcess.Result looked = cuckoo("contains", location("lookups"), "--separator", "|", row1234, row7, shifted);
    assertOk(looked);
    assertEquals(row1234 + "\tmaybe present\n" + row7 + "\tmaybe present\n" + shifted + "\tabsent\n",
        looked.stdout());

    ChildProcess.Result wrongText = cuckoo("contains", location("lookups"), "--separator", "|",
        "key-1|1970-02-30|2020-09-13T12:27:00Z|1|1|00");
    assertEquals(ExitCodes.USAGE, wrongText.exitCode(), wrongText.describe());
    assertTrue(wrongText.stderr().contains("'1970-02-30' is not a value of d date"), wrongText.describe());

    ChildProcess.Result tooFew = cuckoo("contains", location("lookups"), "key-1");
    assertEquals(ExitCodes.USAGE, tooFew.exitCode(), tooFew.describe());
    assertTrue(tooFew.stderr().contains("the filter's key has 6 components (str string, d date, ts timestamp, "
        + "dec decimal(10,2), bigdec decimal(25,3), bin binary), separated by ',', but 1 were given"),
        tooFew.describe());
  }

  @Test
  void infoVerifyDiffAndMergeOnVersionsOfALocation() throws Exception {
    String loc = location("versions");
    assertOk(cuckoo("build", loc, "--input", dir.resolve("ids-0-999").toString(), "--keys", "id",
        "--expected-items", "" + EXPECTED_ITEMS, "--fpp", "" + FPP));
    assertOk(cuckoo("build", loc, "--input", dir.resolve("ids-500-1499").toString(), "--keys", "id",
        "--expected-items", "" + EXPECTED_ITEMS, "--fpp", "" + FPP, "--source", "ids 500 to 1499"));

    ChildProcess.Result info = cuckoo("info", loc + "@2");
    assertOk(info);
    String qualified = FilterStore.open(loc, spark).location();
    assertTrue(info.stdout().startsWith("location: " + qualified + "\nversions: 2\n"), info.describe());
    assertTrue(info.stdout().contains("version 2:\n  key columns: id bigint\n  source:      ids 500 to 1499\n"),
        info.describe());
    assertTrue(info.stdout().contains("  parent:      1\n  fpp:         0.001 (sized for)\n"), info.describe());

    // diff: the entries of keys 0..999 and 500..1499 under the filter's parameters, counted here.
    FilterParameters p = latest("versions").filter().parameters();
    Set<Long> a = codes(p, 0, 1000);
    Set<Long> b = codes(p, 500, 1500);
    Set<Long> both = new HashSet<>(a);
    both.retainAll(b);
    ChildProcess.Result diff = cuckoo("diff", loc + "@1", loc + "@2");
    assertOk(diff);
    assertEquals("A: " + qualified + " version 1, " + a.size() + " entries\nB: " + qualified + " version 2, " + b.size()
        + " entries\nonly in A: " + (a.size() - both.size()) + "\nonly in B: " + (b.size() - both.size())
        + "\nin both:   " + both.size() + "\n", diff.stdout());

    // merge: the union of both versions, laid out canonically, is the Spark build of keys 0..1499.
    ChildProcess.Result merged = cuckoo("merge", loc + "@1", loc + "@2");
    assertOk(merged);
    StoredFilter union = latest("versions");
    assertEquals(3, union.version().version());
    assertArrayEquals(CuckooFilters.builder(spark.range(0, 1500).toDF()).keys("id").expectedItems(EXPECTED_ITEMS)
        .fpp(FPP).build().filter().toByteArray(), union.filter().toByteArray());

    ChildProcess.Result intact = cuckoo("verify", loc);
    assertOk(intact);
    assertTrue(intact.stdout().contains("version 3: ok: ") && intact.stdout().endsWith("3 version(s) checked, all "
        + "intact\n"), intact.describe());
  }

  @Test
  void verifyReportsDamagedCommitRecords() throws Exception {
    String loc = location("records");
    for (int i = 0; i < 3; i++) {
      // A second version of another key column: a deliberate re-key.
    assertOk(cuckoo("build", loc, "--input", dir.resolve("ids-0-999").toString(), "--keys", "id", "--new-keys"));
    }
    Path versions = dir.resolve("filters").resolve("records").resolve("versions");
    Path first = versions.resolve("00000000000000000001.json");
    String record = Files.readString(first);
    Matcher items = Pattern.compile("\"itemCount\" : (\\d+)").matcher(record);
    assertTrue(items.find(), record);
    long count = Long.parseLong(items.group(1));
    Files.writeString(first, items.replaceFirst("\"itemCount\" : " + (count + 1))); // valid JSON, wrong count
    Files.writeString(versions.resolve("00000000000000000002.json"), "{ \"format\" : ");
    ChildProcess.Result verified = cuckoo("verify", loc);
    assertEquals(ExitCodes.CORRUPT, verified.exitCode(), verified.describe());
    String qualified = FilterStore.open(loc, spark).location();
    // The store refuses a record whose counts are not its filter's, naming the record.
    assertTrue(verified.stdout().startsWith("version 1: DAMAGED: location " + qualified + ", version 1: file "
        + qualified + "/versions/00000000000000000001.json is corrupt: the commit record does not describe its data "
        + "file "), verified.describe());
    assertTrue(verified.stdout().contains("metadata.itemCount is " + (count + 1) + " but its filter holds " + count
        + " items\nversion 2: DAMAGED: location " + qualified + ", version 2: file " + qualified
        + "/versions/00000000000000000002.json is corrupt: not a readable commit record"), verified.describe());
    assertTrue(verified.stdout().contains("\nversion 3: ok: "), verified.describe());
    assertEquals("cuckoo verify: error: 2 of 3 versions at " + qualified + " are damaged\n", verified.stderr());
  }

  private static Set<Long> codes(FilterParameters p, long from, long to) {
    Set<Long> codes = new HashSet<>();
    for (long k = from; k < to; k++) {
      codes.add(EntryCodes.ofHash(p, CuckooHash.hashLong(k, p.seed())));
    }
    return codes;
  }

  @Test
  void mergeAndDiffRefuseFiltersSizedDifferentlyNamingTheParameter() {
    assertOk(cuckoo("build", location("small"), "--input", dir.resolve("ids-0-999").toString(), "--keys", "id",
        "--expected-items", "1000"));
    assertOk(cuckoo("build", location("large"), "--input", dir.resolve("ids-500-1499").toString(), "--keys", "id",
        "--expected-items", "100000"));
    assertOk(cuckoo("build", location("strings"), "--input", dir.resolve("typed").toString(), "--keys", "str",
        "--expected-items", "5000"));
    ChildProcess.Result merge = cuckoo("merge", location("small"), location("large"), "--into", location("never"));
    assertEquals(ExitCodes.USAGE, merge.exitCode(), merge.describe());
    assertTrue(merge.stderr().matches("(?s)cuckoo merge: error: cannot merge \\S+/small version 1 and \\S+/large "
        + "version 1: bucketCount differs: \\d+ vs \\d+; only filters sized alike.*"), merge.describe());
    ChildProcess.Result diff = cuckoo("diff", location("small"), location("strings"));
    assertEquals(ExitCodes.USAGE, diff.exitCode(), diff.describe());
    assertTrue(diff.stderr().contains("their keys differ (id bigint vs str string)"), diff.describe());
  }

  @Test
  void theJarRunsAsItsOwnProcessAndVerifyNamesADamagedFile() throws Exception {
    String loc = location("process");
    ChildProcess.Result built = cuckooProcess("build", "build", loc, "--input", dir.resolve("typed").toString(),
        "--keys", "l", "--fpp", "0.01");
    assertOk(built);
    assertTrue(built.stdout().contains("published "), built.describe());
    // A second version of another key column: a deliberate re-key.
    assertOk(cuckoo("build", loc, "--input", dir.resolve("ids-0-999").toString(), "--keys", "id", "--new-keys"));

    ChildProcess.Result looked = cuckooProcess("contains", "contains", loc + "@1", "2999", "-5");
    assertOk(looked);
    CuckooFilter v1 = FilterStore.open(loc, spark).read(1).filter();
    assertEquals("2999\tmaybe present\n-5\t" + (v1.mightContain(-5L) ? "maybe present" : "absent") + "\n",
        looked.stdout());

    Path dataFile;
    try (Stream<Path> files = Files.list(dir.resolve("filters").resolve("process").resolve("data"))) {
      dataFile = files.filter(f -> f.getFileName().toString().startsWith("00000000000000000001-")).findFirst()
          .orElseThrow();
    }
    try (RandomAccessFile f = new RandomAccessFile(dataFile.toFile(), "rw")) {
      f.seek(f.length() / 2); // a byte of the table
      int b = f.read();
      f.seek(f.length() / 2);
      f.write(b ^ 0x10);
    }
    ChildProcess.Result verified = cuckooProcess("verify", "verify", loc);
    assertEquals(ExitCodes.CORRUPT, verified.exitCode(), verified.describe());
    assertTrue(verified.stdout().contains("version 1: DAMAGED: location " + FilterStore.open(loc, spark).location()
        + ", version 1: file " + dataFile.toUri().toString().replace("file:///", "file:/") + " is corrupt"),
        verified.describe());
    assertTrue(verified.stdout().contains("version 2: ok: "), verified.describe());
    assertTrue(verified.stderr().contains("cuckoo verify: error: 1 of 2 versions at "), verified.describe());
    assertEquals(ExitCodes.CORRUPT, cuckoo("contains", loc + "@1", "1").exitCode());
  }

  @Test
  void hadoopSettingsReachTheFileSystem() {
    // A location without a scheme is on fs.defaultFS: here an HDFS NameNode that is not there.
    ChildProcess.Result r = cuckoo("--conf", "fs.defaultFS=hdfs://127.0.0.1:1", "info", "/filters/customers",
        "--conf", "ipc.client.connect.max.retries=0");
    assertEquals(ExitCodes.FAILURE, r.exitCode(), r.describe());
    assertTrue(r.stderr().startsWith("cuckoo info: error: java.net.ConnectException: Call From ")
        && r.stderr().contains(":1 failed on connection exception"), r.describe());
  }

  @Test
  void keyColumnsInMetadataAreSparksTypes() throws Exception {
    assertOk(cuckoo("build", location("types"), "--input", dir.resolve("parquet-types").toString(), "--keys",
        "u8,u32,u64,fdec,e,ntzm", "--expected-items", "3000"));
    List<String> types = new ArrayList<>();
    for (StructField f : latest("types").metadata().keyColumns()) {
      types.add(f.name() + " " + f.dataType().simpleString());
    }
    assertEquals(List.of("u8 smallint", "u32 bigint", "u64 decimal(20,0)", "fdec decimal(20,2)", "e string",
        "ntzm timestamp_ntz"), types);
  }
}
