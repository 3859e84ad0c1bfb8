package dev.cuckoofilter.spark.store;

import static dev.cuckoofilter.spark.store.TestFilters.metadata;
import static dev.cuckoofilter.spark.store.TestFilters.range;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store on a file system it knows no atomic create for (as {@code viewfs:} or {@code webhdfs:}): commits with
 * {@code create(overwrite=false)}. Here the local disk under the scheme {@code flaky:}, whose writes of commit
 * records can be made to fail half way, as a lost connection or an exceeded quota make them.
 */
class OtherFileSystemStoreTest {
  @TempDir
  File dir;

  /** The local file system under the scheme {@code flaky:}. */
  public static final class FlakyRawFileSystem extends RawLocalFileSystem {
    @Override
    public URI getUri() {
      return URI.create("flaky:///");
    }

    @Override
    public String getScheme() {
      return "flaky";
    }
  }

  /** Neither local nor HDFS nor S3A to the store; fails writes of commit records half way while asked to. */
  public static final class FlakyFileSystem extends FilterFileSystem {
    static volatile boolean failCommitWrites;

    public FlakyFileSystem() {
      super(new FlakyRawFileSystem());
    }

    @Override
    public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
        short replication, long blockSize, Progressable progress) throws IOException {
      FSDataOutputStream out = super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress);
      if (!failCommitWrites || !f.getParent().getName().equals(StoreLayout.VERSIONS_DIR)) {
        return out;
      }
      return new FSDataOutputStream(new OutputStream() {
        private long written;

        @Override
        public void write(int b) throws IOException {
          write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          int n = (int) Math.min(len, Math.max(0, 100 - written));
          out.write(b, off, n);
          written += n;
          if (n < len) {
            throw new IOException("the connection was lost (test)");
          }
        }

        @Override
        public void close() throws IOException {
          out.close();
        }
      }, null);
    }
  }

  private Configuration conf() {
    Configuration conf = new Configuration();
    conf.set("fs.flaky.impl", FlakyFileSystem.class.getName());
    conf.setBoolean("fs.flaky.impl.disable.cache", true);
    return conf;
  }

  @Test
  void aCommitWhoseWriteFailsLeavesNoDamagedVersion() throws IOException {
    FilterStore store = FilterStore.open("flaky://" + dir.getAbsolutePath() + "/loc", conf());
    CuckooFilter v1 = range(0, 1000);
    store.publish(v1, metadata(v1, FilterMetadata.NO_PARENT));
    CuckooFilter v2 = range(0, 2000);
    FlakyFileSystem.failCommitWrites = true;
    try {
      IOException e = assertThrows(IOException.class, () -> store.publish(v2, metadata(v2, 1)));
      assertTrue(e.getMessage().contains("committing version 2 failed, nothing was published"), e.getMessage());
    } finally {
      FlakyFileSystem.failCommitWrites = false;
    }
    assertEquals(List.of(1L), store.versionNumbers(), "nothing was published");
    assertEquals(v1, store.readLatest().filter(), "the location reads as before");
    assertEquals(2, store.publish(v2, metadata(v2, 1)).version(), "a retry publishes");
    assertEquals(v2, store.readLatest().filter());
  }
}
