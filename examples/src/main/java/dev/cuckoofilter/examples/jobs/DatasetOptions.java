package dev.cuckoofilter.examples.jobs;

import dev.cuckoofilter.examples.common.InputException;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkThrowable;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Option;

/**
 * How a job reads its input datasets ({@code --format}, {@code --read-option}): files of a Spark data
 * source, or tables of the session's catalog. A dataset that cannot be read is reported naming the
 * option that named it.
 */
final class DatasetOptions {
  /** The formats a job reads; {@link #TABLE} names a table of the catalog instead of a path. */
  enum Format {
    PARQUET, ORC, CSV, JSON, TABLE;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "parquet",
      description = "Format of the input datasets: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}). With table, "
          + "each dataset is a table name such as sales.customers.")
  Format format;

  @Option(names = "--read-option", paramLabel = "KEY=VALUE",
      description = "An option of Spark's reader for the input datasets, such as header=true or inferSchema=true "
          + "for CSV; repeatable.")
  Map<String, String> readOptions = new LinkedHashMap<>();

  /** Reads {@code pathOrTable} in {@code --format}; {@code option} names it in messages. */
  Dataset<Row> read(SparkSession spark, String pathOrTable, String option) {
    return read(spark, pathOrTable, option, format);
  }

  /**
   * Reads {@code pathOrTable} in {@code format}.
   *
   * @throws InputException if the path or table does not exist or Spark cannot read it in that format
   */
  Dataset<Row> read(SparkSession spark, String pathOrTable, String option, Format format) {
    String what = option + " " + pathOrTable;
    if (format == Format.TABLE) {
      if (!tableExists(spark, pathOrTable, what)) {
        throw new InputException(what + ": table " + pathOrTable + " does not exist");
      }
    } else {
      requireExists(spark, pathOrTable, what);
    }
    try {
      return format == Format.TABLE
          ? spark.read().options(readOptions).table(pathOrTable)
          : spark.read().format(format.toString()).options(readOptions).load(pathOrTable);
    } catch (Exception e) {
      if (e instanceof AnalysisException) { // for example no files of the format at the path
        throw new InputException(what + ": cannot read it as " + format + ": " + e.getMessage(), e);
      }
      Throwable unreadable = unreadableFile(e);
      if (unreadable != null) { // a file that is not of the format: Spark fails reading its footer
        throw new InputException(what + ": cannot read it as " + format + ": " + rootMessage(unreadable), e);
      }
      throw e;
    }
  }

  /** Spark's error for a file whose footer cannot be read (not Parquet or ORC, or truncated), among the causes. */
  private static Throwable unreadableFile(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SparkThrowable && "CANNOT_READ_FILE_FOOTER".equals(((SparkThrowable) t).getErrorClass())) {
        return t;
      }
    }
    return null;
  }

  /** The message of the innermost cause: what the file format's reader found. */
  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage();
  }

  /**
   * Whether the catalog has the table {@code name}.
   *
   * @throws InputException if Spark cannot parse the name (a path given with {@code --format table}, say)
   */
  private static boolean tableExists(SparkSession spark, String name, String what) {
    try {
      return spark.catalog().tableExists(name);
    } catch (Exception e) { // Spark's ParseException, an AnalysisException, which Java sees as checked
      if (e instanceof AnalysisException) {
        // its message shows the name under a caret on further lines: the first says what is wrong
        String firstLine = e.getMessage().strip().lines().findFirst().orElse("");
        throw new InputException(what + ": not a table name: " + firstLine, e);
      }
      throw e;
    }
  }

  private static void requireExists(SparkSession spark, String path, String what) {
    FileStatus[] matches;
    try {
      Path p = new Path(path);
      FileSystem fs = p.getFileSystem(spark.sessionState().newHadoopConf());
      matches = fs.globStatus(p);
    } catch (IllegalArgumentException | IOException e) {
      throw new InputException(what + ": cannot access the path: " + e.getMessage(), e);
    }
    if (matches == null || matches.length == 0) {
      throw new InputException(what + ": the input path does not exist");
    }
  }
}
