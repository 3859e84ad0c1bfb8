package dev.cuckoofilter.examples.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.examples.ChildProcess;
import dev.cuckoofilter.examples.common.ExitCodes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code cuckoo} tool, in this JVM and without Spark, on locations and arguments that cannot work: each
 * is refused with its exit code and one line naming the problem (no stack trace), before anything is
 * published, and nothing existing is touched.
 */
class CuckooCliRefusalsTest {
  @TempDir
  static Path dir;

  private static String ids0;
  private static String ids1;

  @BeforeAll
  static void writeParquet() throws IOException {
    ids0 = writeIds("ids-0", 0, 300);
    ids1 = writeIds("ids-1", 200, 500);
  }

  private static String writeIds(String name, long from, long to) throws IOException {
    Path file = dir.resolve(name).resolve("part-0.parquet");
    MessageType schema = MessageTypeParser.parseMessageType("message m { required int64 id; }");
    SimpleGroupFactory rows = new SimpleGroupFactory(schema);
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri()))
        .withType(schema).withConf(new Configuration()).build()) {
      for (long id = from; id < to; id++) {
        writer.write(rows.newGroup().append("id", id));
      }
    }
    return file.getParent().toString();
  }

  private static ChildProcess.Result cuckoo(String... args) {
    return CuckooTool.inProcess(args);
  }

  /** Exit code {@code code} and a single line on stderr, starting with {@code start}. */
  private static void assertRefused(int code, String start, ChildProcess.Result r) {
    assertEquals(code, r.exitCode(), r.describe());
    assertTrue(r.stderr().startsWith(start), r.describe());
    assertFalse(r.stderr().contains("\tat "), "no stack trace: " + r.describe());
  }

  private static String location(String name) {
    return dir.resolve("filters").resolve(name).toString();
  }

  @Test
  void inputsMayComeBeforeTheLocationAndRepeat() {
    ChildProcess.Result built = cuckoo("build", "--keys", "id", "--input", ids0, "--input", ids1, location("both"));
    assertEquals(ExitCodes.OK, built.exitCode(), built.describe());
    assertTrue(built.stdout().startsWith("read 600 rows of 2 file(s): 500 distinct keys"), built.describe());

    // several paths after one --input are not taken for LOCATION silently
    ChildProcess.Result greedy = cuckoo("build", "--keys", "id", "--input", ids0, ids1, location("never"));
    assertRefused(ExitCodes.USAGE, "cuckoo build: error: Unmatched argument", greedy);
    assertFalse(Files.exists(Path.of(location("never"))));
  }

  /**
   * A glob over a directory Spark wrote matches its _SUCCESS marker, its .crc side files and _temporary, whose
   * files in progress lie below a further _temporary (the match's own name does not count: Spark reads a directory
   * it matches, BuildInputListingTest), which Spark leaves out of a glob as it does of a directory; the build
   * refused the glob with "_SUCCESS is not a readable Parquet file" (exit code 2), though Spark reads it.
   */
  @Test
  void globsLeaveOutTheFilesSparkLeavesOut() throws IOException {
    Path data = dir.resolve("globbed");
    Path inProgress = data.resolve("_temporary").resolve("0").resolve("_temporary").resolve("attempt_0");
    Files.createDirectories(inProgress);
    Files.copy(Path.of(ids0).resolve("part-0.parquet"), data.resolve("part-0.parquet"));
    Files.write(data.resolve("_SUCCESS"), new byte[0]);
    Files.copy(Path.of(ids0).resolve(".part-0.parquet.crc"), data.resolve(".part-0.parquet.crc"));
    Files.write(inProgress.resolve("part-1.parquet"), new byte[] {1, 2, 3});
    ChildProcess.Result globbed = cuckoo("build", location("globbed"), "--keys", "id", "--input", data + "/*");
    assertEquals(ExitCodes.OK, globbed.exitCode(), globbed.describe());
    assertTrue(globbed.stdout().startsWith("read 300 rows of 1 file(s): 300 distinct keys"), globbed.describe());
  }

  @Test
  void aBuildWithOtherKeyColumnsIsRefusedUnlessItReKeysTheLocation() throws IOException {
    Path file = dir.resolve("names").resolve("part-0.parquet");
    MessageType schema = MessageTypeParser.parseMessageType("message m { required binary name (STRING); }");
    SimpleGroupFactory rows = new SimpleGroupFactory(schema);
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri()))
        .withType(schema).withConf(new Configuration()).build()) {
      writer.write(rows.newGroup().append("name", "c-1"));
    }
    ChildProcess.Result first = cuckoo("build", "--keys", "id", "--input", ids0, location("keyed"));
    assertEquals(ExitCodes.OK, first.exitCode(), first.describe());
    ChildProcess.Result other = cuckoo("build", "--keys", "name", "--input", file.getParent().toString(),
        location("keyed"));
    assertRefused(ExitCodes.USAGE, "cuckoo build: error: location file:" + location("keyed") + ": version 2 would have "
        + "the key columns (name string) but version 1, the latest, has (id bigint): key column 1 is name string "
        + "instead of id bigint.", other);
    ChildProcess.Result info = cuckoo("info", location("keyed"));
    assertTrue(info.stdout().contains("versions: 1"), info.describe());
    ChildProcess.Result rekeyed = cuckoo("build", "--keys", "name", "--new-keys", "--input",
        file.getParent().toString(), location("keyed"));
    assertEquals(ExitCodes.OK, rekeyed.exitCode(), rekeyed.describe());
    assertTrue(rekeyed.stdout().contains("version 2"), rekeyed.describe());
  }

  /**
   * Composite keys of the same types in another column order hash other keys alike: merging or comparing them is
   * refused unless the user says the names differ but the columns are the same.
   */
  @Test
  void compositeKeysWithOtherColumnNamesAreNotMergedUnlessAsked() throws IOException {
    Path file = dir.resolve("pairs").resolve("part-0.parquet");
    MessageType schema = MessageTypeParser.parseMessageType("message m { required int64 a; required int64 b; }");
    SimpleGroupFactory rows = new SimpleGroupFactory(schema);
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri()))
        .withType(schema).withConf(new Configuration()).build()) {
      for (long i = 0; i < 200; i++) {
        writer.write(rows.newGroup().append("a", i).append("b", 1000 + i));
      }
    }
    String pairs = file.getParent().toString();
    for (String[] build : List.of(new String[] {"a,b", "ab"}, new String[] {"b,a", "ba"}, new String[] {"A,B", "AB"})) {
      ChildProcess.Result r = cuckoo("build", "--keys", build[0], "--expected-items", "1000", "--input", pairs,
          location(build[1]));
      assertEquals(ExitCodes.OK, r.exitCode(), r.describe());
    }
    for (String command : List.of("merge", "diff")) {
      assertRefused(ExitCodes.USAGE, "cuckoo " + command + ": error: cannot " + (command.equals("diff") ? "compare" : command)
          + " file:" + location("ab") + " version 1 and file:" + location("ba") + " version 1: their composite keys "
          + "have other column names (a bigint, b bigint vs b bigint, a bigint)", cuckoo(command, location("ab"), location("ba")));
    }
    assertTrue(cuckoo("info", location("ab")).stdout().contains("versions: 1\n"), "nothing was published");
    // The same names in another case are the same columns to Spark.
    assertEquals(ExitCodes.OK, cuckoo("diff", location("ab"), location("AB")).exitCode());
    ChildProcess.Result asked = cuckoo("merge", "--ignore-key-names", location("ab"), location("ba"));
    assertEquals(ExitCodes.OK, asked.exitCode(), asked.describe());
  }

  /**
   * A char key is hashed padded to its length: a char(3) filter holds 'ab ', a char(5) one 'ab   '. Merged, B's keys
   * were under A's char(3) key columns with char(5) entries, so a probe of 'ab ' missed them; such filters are refused.
   */
  @Test
  void charKeysOfOtherLengthsAreNotMerged() throws IOException {
    for (String length : List.of("3", "5", "3b")) {
      String json = "{\"type\":\"struct\",\"fields\":[{\"name\":\"k\",\"type\":\"string\",\"nullable\":true,"
          + "\"metadata\":{\"__CHAR_VARCHAR_TYPE_STRING\":\"char(" + length.charAt(0) + ")\"}}]}";
      dev.cuckoofilter.core.CuckooFilter f = dev.cuckoofilter.core.CuckooFilter.create(100, 0.01);
      dev.cuckoofilter.spark.store.FilterStore.open(new java.io.File(location("char" + length)).toURI().toString(),
          new Configuration()).publish(f, dev.cuckoofilter.spark.store.VersionMetadata.of(f, json, "test", -1));
    }
    for (String command : List.of("merge", "diff")) {
      assertRefused(ExitCodes.USAGE, "cuckoo " + command + ": error: cannot " + (command.equals("diff") ? "compare" : command)
          + " file:" + location("char3") + " version 1 and file:" + location("char5") + " version 1: their char key "
          + "lengths differ ([char(3)] vs [char(5)])", cuckoo(command, location("char3"), location("char5")));
    }
    assertTrue(cuckoo("info", location("char3")).stdout().contains("versions: 1\n"), "nothing was published");
    ChildProcess.Result same = cuckoo("merge", location("char3"), location("char3b"));
    assertEquals(ExitCodes.OK, same.exitCode(), same.describe());
  }

  /** {@code k = 'ab'} matches a char(3) row 'ab ' in Spark; contains answered absent for 'ab' (hashed unpadded). */
  @Test
  void charKeyTextIsPaddedToTheColumnsLength() throws IOException {
    String json = "{\"type\":\"struct\",\"fields\":[{\"name\":\"k\",\"type\":\"string\",\"nullable\":true,"
        + "\"metadata\":{\"__CHAR_VARCHAR_TYPE_STRING\":\"char(3)\"}}]}";
    dev.cuckoofilter.core.CuckooFilter f = dev.cuckoofilter.core.CuckooFilter.create(100, 0.0001);
    f.add("ab "); // the value of a char(3) row 'ab', as Spark reads and hashes it
    dev.cuckoofilter.spark.store.FilterStore.open(new java.io.File(location("char-contains")).toURI().toString(),
        new Configuration()).publish(f, dev.cuckoofilter.spark.store.VersionMetadata.of(f, json, "test", -1));
    ChildProcess.Result r = cuckoo("contains", location("char-contains"), "ab", "ab ", "ab   ", "xyz");
    assertEquals(ExitCodes.OK, r.exitCode(), r.describe());
    assertEquals("ab\tmaybe present\nab \tmaybe present\nab   \tmaybe present\nxyz\tabsent\n", r.stdout());
  }

  @Test
  void sizingThatCannotBeMetIsRefusedBeforeReading() {
    ChildProcess.Result fpp = cuckoo("build", location("never"), "--input", ids0, "--keys", "id", "--fpp", "1e-300");
    assertRefused(ExitCodes.USAGE, "cuckoo build: error: --fpp 1.0E-300 cannot be met: ", fpp);

    ChildProcess.Result items = cuckoo("build", location("never"), "--input", ids0, "--keys", "id",
        "--expected-items", "99999999999999999");
    assertRefused(ExitCodes.USAGE, "cuckoo build: error: --expected-items 99999999999999999 with --fpp 0.01 cannot be "
        + "met: ", items);
    assertFalse(Files.exists(Path.of(location("never"))));
  }

  @Test
  void locationsThatCannotBeFilterLocationsAreRefused() throws IOException {
    Path file = Files.writeString(dir.resolve("a-file"), "not a filter location");
    for (String subcommand : List.of("info", "verify")) {
      assertRefused(ExitCodes.USAGE, "cuckoo " + subcommand + ": error: location " + file + ": file:" + file
          + " is a file, not a filter location", cuckoo(subcommand, file.toString()));
      assertRefused(ExitCodes.USAGE, "cuckoo " + subcommand + ": error: location nosuchfs://host/filters: no file "
          + "system serves its scheme", cuckoo(subcommand, "nosuchfs://host/filters"));
    }
    assertRefused(ExitCodes.USAGE, "cuckoo contains: error: location " + file + ": ",
        cuckoo("contains", file.toString(), "1"));
    assertRefused(ExitCodes.USAGE, "cuckoo info: error: location '' is not a usable location", cuckoo("info", ""));
    // A file system that cannot be set up for the URI (an hdfs: URI without a NameNode, fs.defaultFS being file:):
    // until 2026-11-29 exit code 1 and a stack trace.
    assertRefused(ExitCodes.USAGE, "cuckoo info: error: location hdfs:///filters/x: cannot obtain its file system: "
        + "Incomplete HDFS URI, no host", cuckoo("info", "hdfs:///filters/x"));

    // publishing: checked before the input is read
    assertRefused(ExitCodes.USAGE, "cuckoo build: error: location " + file + ": ",
        cuckoo("build", file.toString(), "--input", ids0, "--keys", "id"));
    assertRefused(ExitCodes.USAGE, "cuckoo build: error: location nosuchfs://host/f: no file system serves its scheme",
        cuckoo("build", "nosuchfs://host/f", "--input", ids0, "--keys", "id"));
    assertEquals("not a filter location", Files.readString(file));
  }

  @Test
  void aDirectoryOfOtherFilesIsNotPublishedInto() throws IOException {
    // LOCATION mistaken for an input: the store's directories would be added to the dataset
    ChildProcess.Result build = cuckoo("build", ids1, "--input", ids0, "--keys", "id");
    assertRefused(ExitCodes.USAGE, "cuckoo build: error: location " + ids1 + ": file:" + ids1 + " holds other files "
        + "than a filter location's versions/ and data/ (part-0.parquet", build);
    try (Stream<Path> files = Files.list(Path.of(ids1))) {
      assertEquals(List.of("part-0.parquet"), files.map(p -> p.getFileName().toString())
          .filter(n -> !n.startsWith(".")).toList());
    }

    String a = location("merge-a");
    assertEquals(ExitCodes.OK, cuckoo("build", a, "--input", ids0, "--keys", "id", "--expected-items", "1000")
        .exitCode());
    ChildProcess.Result merge = cuckoo("merge", "--into", ids1, a, a);
    assertRefused(ExitCodes.USAGE, "cuckoo merge: error: --into " + ids1 + ": ", merge);
    ChildProcess.Result badInto = cuckoo("merge", "--into", "nosuchfs://host/f", a, a);
    assertRefused(ExitCodes.USAGE, "cuckoo merge: error: --into nosuchfs://host/f: no file system serves its scheme",
        badInto);
    assertTrue(cuckoo("info", a).stdout().contains("versions: 1\n"), "nothing was published at A");
  }

  @Test
  void aVersionWhoseDataFileIsMissingIsDamagedNotIntact() throws IOException {
    String loc = location("lost-data");
    assertEquals(ExitCodes.OK, cuckoo("build", loc, "--input", ids0, "--keys", "id").exitCode());
    assertEquals(ExitCodes.OK, cuckoo("build", loc, "--input", ids1, "--keys", "id").exitCode());
    Path data;
    try (Stream<Path> files = Files.list(Path.of(loc, "data"))) {
      data = files.filter(p -> p.getFileName().toString().startsWith("00000000000000000001-")).findFirst()
          .orElseThrow();
    }
    Files.delete(data);

    ChildProcess.Result verify = cuckoo("verify", loc);
    assertEquals(ExitCodes.CORRUPT, verify.exitCode(), verify.describe());
    assertTrue(verify.stdout().startsWith("version 1: DAMAGED: location file:" + loc + ", version 1: file file:" + loc
        + "/versions/00000000000000000001.json is corrupt: the data file it names is missing"), verify.describe());
    assertTrue(verify.stdout().contains("version 2: ok: "), verify.describe());
    assertEquals("cuckoo verify: error: 1 of 2 versions at file:" + loc + " are damaged\n", verify.stderr());

    assertRefused(ExitCodes.CORRUPT, "cuckoo contains: error: location file:" + loc + ", version 1: file ",
        cuckoo("contains", loc + "@1", "5"));
    assertRefused(ExitCodes.CORRUPT, "cuckoo info: error: location file:" + loc + ", version 1: file ",
        cuckoo("info", loc + "@1"));
    // a version that does not exist is still "fix the command"
    assertRefused(ExitCodes.USAGE, "cuckoo info: error: location file:" + loc + ": version 3 does not exist",
        cuckoo("info", loc + "@3"));
  }
}
