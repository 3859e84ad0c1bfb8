package dev.cuckoofilter.examples.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.examples.ChildProcess;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.StoredVersion;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cuckoo merge} and {@code cuckoo build} against a location that another writer publishes to while they read
 * their inputs: each replaces the latest version, so it must not replace a version it never read.
 */
class MergeConcurrencyTest {
  @TempDir
  Path dir;

  private String writeIds(String name, long from, long to) throws IOException {
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

  @Test
  void aVersionPublishedWhileTheMergeRanIsNotReplacedByTheMerge() throws IOException {
    String a = dir.resolve("a").toString();
    String b = dir.resolve("b").toString();
    assertEquals(ExitCodes.OK, CuckooTool.inProcess("build", a, "--input", writeIds("ids-0", 0, 300), "--keys", "id",
        "--expected-items", "2000").exitCode());
    assertEquals(ExitCodes.OK, CuckooTool.inProcess("build", b, "--input", writeIds("ids-1", 200, 500), "--keys", "id",
        "--expected-items", "2000").exitCode());
    FilterStore storeA = FilterStore.open(a, new Configuration());
    // While the merge reads B (after it read A's latest version, 1), another writer publishes version 2 of A.
    HookedLocalFileSystem.onOpenOfDataFile = () -> {
      StoredVersion v1 = storeA.readLatestVersion();
      CuckooFilter changed = v1.filter().copy();
      assertTrue(changed.add(1_000_000L));
      storeA.publish(changed, dev.cuckoofilter.spark.store.VersionMetadata.of(changed, v1.metadata().keyColumnsJson(),
          "a concurrent update", 1));
    };
    try {
      ChildProcess.Result merge = CuckooTool.inProcess("--conf", "fs.hooked.impl=" + HookedLocalFileSystem.class.getName(),
          "--conf", "fs.hooked.impl.disable.cache=true", "merge", a, "hooked://" + b);
      assertTrue(HookedLocalFileSystem.onOpenOfDataFile == null, "the concurrent writer ran");
      assertEquals(ExitCodes.CONFLICT, merge.exitCode(), merge.describe());
      assertTrue(merge.stderr().startsWith("cuckoo merge: error: location file:" + a + ": version 2 was published "
          + "concurrently by another writer"), merge.describe());
      assertFalse(merge.stderr().contains("\tat "), merge.describe());
    } finally {
      HookedLocalFileSystem.onOpenOfDataFile = null;
    }
    assertEquals(2, storeA.versionNumbers().size(), "the merge published nothing over version 2");
    assertTrue(storeA.readLatestVersion().filter().mightContain(1_000_000L), "version 2's change is still there");
  }

  /**
   * build took the version to replace when it published, after reading its input: an update published while it read
   * (here: key 1000000 added) was replaced unseen by a filter of the older input, which lacks the update's key.
   */
  @Test
  void aVersionPublishedWhileTheBuildReadItsInputIsNotReplacedByTheBuild() throws IOException {
    String location = dir.resolve("built").toString();
    String ids = writeIds("ids", 0, 300);
    assertEquals(ExitCodes.OK, CuckooTool.inProcess("build", location, "--input", ids, "--keys", "id",
        "--expected-items", "2000").exitCode());
    FilterStore store = FilterStore.open(location, new Configuration());
    HookedLocalFileSystem.onOpenOfParquetFile = () -> {
      StoredVersion v1 = store.readLatestVersion();
      CuckooFilter changed = v1.filter().copy();
      assertTrue(changed.add(1_000_000L));
      store.publish(changed, dev.cuckoofilter.spark.store.VersionMetadata.of(changed, v1.metadata().keyColumnsJson(),
          "a concurrent update", 1));
    };
    try {
      ChildProcess.Result build = CuckooTool.inProcess("--conf", "fs.hooked.impl=" + HookedLocalFileSystem.class.getName(),
          "--conf", "fs.hooked.impl.disable.cache=true", "build", location, "--input",
          "hooked://" + ids + "/part-0.parquet", "--keys", "id", "--expected-items", "2000");
      assertTrue(HookedLocalFileSystem.onOpenOfParquetFile == null, "the concurrent writer ran: " + build.describe());
      assertEquals(ExitCodes.CONFLICT, build.exitCode(), build.describe());
      assertTrue(build.stderr().startsWith("cuckoo build: error: location file:" + location + ": version 2 was "
          + "published concurrently by another writer"), build.describe());
    } finally {
      HookedLocalFileSystem.onOpenOfParquetFile = null;
    }
    assertEquals(2, store.versionNumbers().size(), "the build published nothing over version 2");
    assertTrue(store.readLatestVersion().filter().mightContain(1_000_000L), "version 2's change is still there");
  }
}
