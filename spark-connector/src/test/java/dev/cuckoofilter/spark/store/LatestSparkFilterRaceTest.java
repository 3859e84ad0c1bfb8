package dev.cuckoofilter.spark.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.SparkTestSession;
import java.io.File;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The latest version as a Spark filter while retention runs: between the reader's read of the latest commit
 * record and its read of that version's data file, another writer publishes a version and retention removes
 * the one being read. The location has a latest version, so the reader must read it, as
 * {@link FilterStore#readLatest()} does, not fail with "version removed".
 */
class LatestSparkFilterRaceTest {
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

  /** The local file system, with one action run right after the next opening of a commit record. */
  public static final class CommitOpenRaceFileSystem extends RawLocalFileSystem {
    static volatile IORunnable afterCommitOpened;

    interface IORunnable {
      void run() throws IOException;
    }

    @Override
    public FSDataInputStream open(Path f, int bufferSize) throws IOException {
      FSDataInputStream in = super.open(f, bufferSize); // open: the record stays readable once removed
      IORunnable action = afterCommitOpened;
      if (action != null && f.getParent().getName().equals(StoreLayout.VERSIONS_DIR)) {
        afterCommitOpened = null;
        action.run();
      }
      return in;
    }
  }

  @Test
  void theLatestVersionRemovedAfterItsRecordWasReadIsReplacedByTheNewLatest() throws IOException {
    FilterStore writer = FilterStore.open(new File(dir, "race").toURI().toString(), new Configuration());
    CuckooFilter first = TestFilters.range(0, 500);
    writer.publish(first, TestFilters.metadata(first, FilterMetadata.NO_PARENT));
    Configuration racing = new Configuration();
    racing.setClass("fs.file.impl", CommitOpenRaceFileSystem.class, org.apache.hadoop.fs.FileSystem.class);
    racing.setBoolean("fs.file.impl.disable.cache", true);
    FilterStore reader = FilterStore.open(writer.location(), racing);

    long parent = 1;
    for (int path = 0; path < 2; path++) { // broadcast chosen explicitly, and by size
      CuckooFilter next = TestFilters.range(1000 * (path + 1), 1000 * (path + 1) + 500);
      long onParent = parent;
      CommitOpenRaceFileSystem.afterCommitOpened = () -> {
        writer.publish(next, TestFilters.metadata(next, onParent));
        writer.retain(1);
      };
      SparkCuckooFilter latest = path == 0 ? reader.sparkFilterLatest(spark, true) : reader.sparkFilterLatest(spark);
      assertNull(CommitOpenRaceFileSystem.afterCommitOpened, "the race was run");
      parent++;
      assertEquals(java.util.List.of(parent), writer.versionNumbers(), "only the new latest is left");
      assertEquals(next, latest.filter());
      assertTrue(latest.toString().contains("version " + parent), latest.toString());
    }
  }
}
