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
 * {@code cuckoo merge} against a location that another writer publishes to while the merge reads its inputs:
 * the merge is a read-modify-write of the target location, so it must not replace a version it never read.
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
}
