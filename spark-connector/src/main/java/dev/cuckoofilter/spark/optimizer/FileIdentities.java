package dev.cuckoofilter.spark.optimizer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.attribute.FileTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonPathCapabilities;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;

/**
 * What tells a file of a table from another written under its name with the same length and modification time (a
 * copy that keeps times, such as {@code distcp -pt}, or an object replaced within the second of its write, as S3's
 * Last-Modified has whole seconds): HDFS's inode number, an object store's ETag, a local file's inode number and
 * change time (which no copy can set).
 *
 * <p>Spark's file index does not always keep the file system's own statuses, which carry the first two: it keeps
 * S3A's as plain {@code LocatedFileStatus} (unless {@code spark.sql.sources.ignoreDataLocality}), and a listing by a
 * Spark job (more directories than {@code spark.sql.sources.parallelPartitionDiscovery.threshold}) keeps none. Where
 * a status lacks its identity on a file system that has one, the index's root directories are listed again with the
 * file system itself (one recursive listing each: a flat LIST of up to 1,000 objects per request on S3A).
 */
final class FileIdentities {
  private final Map<Path, String> relisted;

  private FileIdentities(Map<Path, String> relisted) {
    this.relisted = relisted;
  }

  /** The identities of {@code files}, the files under {@code roots}, read from the file systems of {@code conf}. */
  static FileIdentities of(List<Path> roots, List<FileStatus> files, Configuration conf) {
    if (files.stream().allMatch(f -> !listed(f).isEmpty() || isLocal(f.getPath()))) {
      return new FileIdentities(Map.of());
    }
    Map<Path, String> relisted = new HashMap<>();
    for (Path root : roots) {
      try {
        FileSystem fs = root.getFileSystem(conf);
        if (!"hdfs".equals(fs.getScheme()) && !fs.hasPathCapability(root, CommonPathCapabilities.ETAGS_AVAILABLE)) {
          continue; // no identity to find there
        }
        RemoteIterator<LocatedFileStatus> it = fs.listFiles(root, true);
        while (it.hasNext()) {
          LocatedFileStatus status = it.next();
          relisted.put(status.getPath(), listed(status));
        }
      } catch (java.io.FileNotFoundException e) {
        // A root that does not exist, which Spark's index reads as empty (a partition directory removed, an S3
        // prefix without objects), or one removed since the index listed it (the file list differs then): its files,
        // if any, have no identity, and the other roots are listed still.
      } catch (IOException e) {
        throw new UncheckedIOException("cannot list the table's files at " + root, e);
      }
    }
    return new FileIdentities(relisted);
  }

  /** The identity of {@code file} as a suffix of its fingerprint line ("\tid 123"), or "" where none is known. */
  String of(FileStatus file) {
    String identity = listed(file);
    if (identity.isEmpty()) {
      identity = relisted.getOrDefault(file.getPath(), "");
    }
    if (identity.isEmpty() && isLocal(file.getPath())) {
      identity = local(file.getPath());
    }
    return identity;
  }

  /** The identity a file system's own status carries: HDFS's inode number, an object store's ETag. */
  private static String listed(FileStatus file) {
    if (file instanceof HdfsFileStatus hdfs) {
      return "\tid " + hdfs.getFileId();
    }
    return file instanceof EtagSource etag && etag.getEtag() != null ? "\tetag " + etag.getEtag() : "";
  }

  private static boolean isLocal(Path path) {
    return "file".equals(path.toUri().getScheme());
  }

  /**
   * A local file's inode number and change time, where the platform has them: rewriting a file under its name
   * changes its change time, which, unlike the modification time, no program can set back.
   */
  private static String local(Path path) {
    try {
      Map<String, Object> unix = Files.readAttributes(java.nio.file.Path.of(path.toUri()), "unix:ino,ctime");
      return "\tino " + unix.get("ino") + " ctime " + ((FileTime) unix.get("ctime")).to(TimeUnit.NANOSECONDS);
    } catch (UnsupportedOperationException | IllegalArgumentException | IOException e) {
      return ""; // no unix attributes here (or the file is gone: the file list differs anyway)
    }
  }
}
