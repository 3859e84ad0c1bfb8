package dev.cuckoofilter.examples.cli;

import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

/**
 * The local file system under the scheme {@code hooked:}, which runs a test's action once, when the next data
 * file ({@code .ckf}) or Parquet file is opened: another writer acting while a command reads. Configured with
 * {@code fs.hooked.impl} and {@code fs.hooked.impl.disable.cache=true}.
 */
public final class HookedLocalFileSystem extends RawLocalFileSystem {
  /** What to run on the next open of a data file; cleared when it runs. */
  static volatile IoAction onOpenOfDataFile;
  /** What to run on the next open of a Parquet file (a build's input); cleared when it runs. */
  static volatile IoAction onOpenOfParquetFile;

  /** An action that may fail with an I/O error. */
  interface IoAction {
    void run() throws IOException;
  }

  @Override
  public URI getUri() {
    return URI.create("hooked:///");
  }

  @Override
  public String getScheme() {
    return "hooked";
  }

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    IoAction action = onOpenOfDataFile;
    if (action != null && f.getName().endsWith(".ckf")) {
      onOpenOfDataFile = null;
      action.run();
    }
    IoAction inputAction = onOpenOfParquetFile;
    if (inputAction != null && f.getName().endsWith(".parquet")) {
      onOpenOfParquetFile = null;
      inputAction.run();
    }
    return super.open(f, bufferSize);
  }
}
