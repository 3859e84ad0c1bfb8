package dev.cuckoofilter.spark.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.hdfs.DistributedFileSystem;

/**
 * Creates a commit file only if no file of that name exists ("put if absent"), in one atomic step on
 * the file systems that allow it (docs/STORE.md, "Commit protocol"). This is the only point where two
 * writers can race, so it decides which of them publishes a version.
 */
abstract class ExclusiveCreate {
  /**
   * Creates {@code file} holding exactly {@code content}, unless a file of that name exists.
   *
   * @return true if this call created the file; false if the name was taken (the existing file is untouched)
   */
  abstract boolean create(Path file, byte[] content) throws IOException;

  /** How the file system is made to create exclusively, for messages. */
  abstract String protocol();

  /** The strongest protocol {@code fs} supports. */
  static ExclusiveCreate forFileSystem(FileSystem fs, Configuration conf, StoreLayout layout) throws IOException {
    if (fs instanceof RawLocalFileSystem) {
      return new HardLink((RawLocalFileSystem) fs, layout.temp);
    }
    if (fs instanceof DistributedFileSystem) {
      return new RenameNoReplace((DistributedFileSystem) fs, layout.temp);
    }
    if (isS3A(fs)) {
      // The only reference to the S3 class: hadoop-aws and the AWS SDK need not be on the classpath otherwise.
      return S3ConditionalPut.create(fs, conf);
    }
    return new CreateNoOverwrite(fs);
  }

  /** By class name, so that S3A's classes are not needed to ask. */
  private static boolean isS3A(FileSystem fs) {
    for (Class<?> c = fs.getClass(); c != null; c = c.getSuperclass()) {
      if (c.getName().equals("org.apache.hadoop.fs.s3a.S3AFileSystem")) {
        return true;
      }
    }
    return false;
  }

  private static Path tempFor(Path temp, Path file) {
    return new Path(temp, file.getName() + "." + UUID.randomUUID() + ".tmp");
  }

  /**
   * Local file system: write a temporary file completely, then hard-link it under the commit name.
   * {@code link(2)} is atomic and fails if the name exists, and the name appears with its whole content.
   * (Creating the commit file itself with {@code CREATE_NEW} is atomic too, but its content would be
   * written after the name appeared, so a reader could see an empty or partial record.)
   */
  static final class HardLink extends ExclusiveCreate {
    private final RawLocalFileSystem fs;
    private final Path temp;

    HardLink(RawLocalFileSystem fs, Path temp) {
      this.fs = fs;
      this.temp = temp;
    }

    @Override
    boolean create(Path file, byte[] content) throws IOException {
      java.nio.file.Path target = fs.pathToFile(file).toPath();
      java.nio.file.Path tmp = fs.pathToFile(tempFor(temp, file)).toPath();
      Files.createDirectories(target.getParent());
      Files.createDirectories(tmp.getParent());
      try {
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
          ByteBuffer b = ByteBuffer.wrap(content);
          while (b.hasRemaining()) {
            ch.write(b);
          }
          ch.force(true);
        }
        try {
          Files.createLink(target, tmp);
          return true;
        } catch (java.nio.file.FileAlreadyExistsException e) {
          return false;
        } catch (UnsupportedOperationException e) {
          throw new IOException("the local file system holding " + file + " does not support hard links, which the "
              + "filter store needs to publish versions atomically", e);
        }
      } finally {
        Files.deleteIfExists(tmp);
      }
    }

    @Override
    String protocol() {
      return "local file system: link(2) of a complete temporary file";
    }
  }

  /**
   * HDFS: write a temporary file completely, then rename it with {@link Options.Rename#NONE}. The rename
   * is one NameNode operation under its namespace lock and fails if the destination exists. (A plain
   * {@code create(overwrite=false)} of the commit file is atomic as well, but the file is visible, empty
   * or partial, until the writer closes it.)
   */
  static final class RenameNoReplace extends ExclusiveCreate {
    private final DistributedFileSystem fs;
    private final Path temp;

    RenameNoReplace(DistributedFileSystem fs, Path temp) {
      this.fs = fs;
      this.temp = temp;
    }

    @Override
    boolean create(Path file, byte[] content) throws IOException {
      Path tmp = tempFor(temp, file);
      try {
        try (FSDataOutputStream out = fs.create(tmp, false)) {
          out.write(content);
          out.hsync();
        }
        fs.mkdirs(file.getParent());
        try {
          fs.rename(tmp, file, Options.Rename.NONE);
          return true;
        } catch (FileAlreadyExistsException e) {
          return false;
        }
      } finally {
        fs.delete(tmp, false); // already gone after a successful rename
      }
    }

    @Override
    String protocol() {
      return "HDFS: rename(NONE) of a complete temporary file at the NameNode";
    }
  }

  /**
   * Any other file system: {@code create(overwrite=false)}. Atomic where the file system makes it so
   * (object stores with conditional creates); elsewhere a check followed by a create, so two writers
   * racing within that gap may both believe they won. Documented as best effort.
   */
  static final class CreateNoOverwrite extends ExclusiveCreate {
    private final FileSystem fs;

    CreateNoOverwrite(FileSystem fs) {
      this.fs = fs;
    }

    @Override
    boolean create(Path file, byte[] content) throws IOException {
      FSDataOutputStream out;
      try {
        out = fs.create(file, false);
      } catch (FileAlreadyExistsException e) {
        return false;
      }
      try (out) {
        out.write(content);
      } catch (IOException e) {
        // The name is this writer's (the create succeeded), and a record cut short would stay as a damaged version
        // that every reader of the latest version trips over: remove it unless it holds the whole record (then
        // the commit's caller reads it back and finds the commit made).
        if (!holds(file, content)) {
          try {
            fs.delete(file, false);
          } catch (IOException d) {
            e.addSuppressed(d);
          }
        }
        throw e;
      }
      return true;
    }

    private boolean holds(Path file, byte[] content) {
      try (java.io.InputStream in = fs.open(file)) {
        return java.util.Arrays.equals(in.readNBytes(content.length + 1), content);
      } catch (IOException e) {
        return false;
      }
    }

    @Override
    String protocol() {
      return fs.getScheme() + ": create(overwrite=false), best effort";
    }
  }
}
