package dev.cuckoofilter.examples.cli;

import dev.cuckoofilter.core.CanonicalBuilder;
import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.FilterFullException;
import dev.cuckoofilter.core.FilterParameters;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.examples.common.InputException;
import dev.cuckoofilter.examples.common.Publishing;
import dev.cuckoofilter.examples.common.SizingOptions;
import dev.cuckoofilter.spark.store.FilterMetadata;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.FilterVersion;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.parquet.schema.MessageType;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code cuckoo build}: a filter of the keys of Parquet files, read on this machine with parquet-hadoop
 * ({@link ParquetKeys}), for datasets one machine can scan. The filter is the one the Spark build makes of
 * the same files ({@code CuckooFilters.builder(spark.read().parquet(...))}): the same key hashes, the
 * distinct entries inserted in canonical order, and, with {@code --expected-items}, byte for byte the same
 * filter. Without it the filter is sized from the exact number of distinct keys times {@code --headroom}
 * (Spark sizes from an approximate count), plus 16.
 */
@Command(name = "build", usageHelpAutoWidth = true, sortOptions = false,
    description = "Builds a filter of the keys of Parquet files without Spark and publishes it as the next version "
        + "of a filter location; the same filter the Spark build makes of the same files.")
final class BuildCommand extends StoreCommand {
  @Parameters(index = "0", paramLabel = "LOCATION", description = "The filter location to publish to.")
  String location;

  // One path per --input, repeatable: a greedy --input would take LOCATION for a path when it comes last.
  @Option(names = "--input", required = true, paramLabel = "PATH",
      description = "Parquet files, directories of them (read recursively, skipping names that start with _ or .), "
          + "or globs; repeat --input for several.")
  List<String> inputs;

  @Option(names = "--keys", required = true, split = ",", paramLabel = "COLUMN",
      description = "The key column(s), comma-separated; several columns make a composite key.")
  List<String> keys;

  @Mixin
  SizingOptions sizing;

  @Option(names = "--source", paramLabel = "TEXT",
      description = "Where the keys come from, recorded in the metadata (default: the input paths).")
  String source;

  @Option(names = "--new-keys",
      description = "Re-key the location: publish although --keys (names or types) differ from the latest version's "
          + "key columns, which is refused otherwise.")
  boolean newKeys;

  @Override
  public Integer call() throws Exception {
    sizing.requireFeasible();
    Configuration conf = cli.hadoopConf();
    FilterStore store = openForPublishing(location, "location");
    // The version this build replaces, read before the input: a version published while the build reads (an update)
    // makes the publish a conflict instead of being replaced by a filter of the older data.
    long parent = store.latest().map(FilterVersion::version).orElse(FilterMetadata.NO_PARENT);
    List<Path> files = parquetFiles(conf);
    DistinctLongs hashes = new DistinctLongs();
    long[] rows = {0};
    long nullKeys = 0;
    List<ParquetKeys.KeyColumn> columns = null;
    Path firstFile = null;
    Map<String, String> charTypes = Map.of();
    for (Path file : files) {
      MessageType schema;
      try {
        schema = ParquetKeys.schema(conf, file);
      } catch (IOException | RuntimeException e) {
        throw new InputException(file + " is not a readable Parquet file: " + e.getMessage(), e);
      }
      List<ParquetKeys.KeyColumn> fileColumns = ParquetKeys.keyColumns(schema, keys, file);
      if (columns == null) {
        columns = fileColumns;
        firstFile = file;
        charTypes = ParquetKeys.sparkCharTypes(conf, file);
      } else {
        requireSameTypes(columns, firstFile, fileColumns, file);
      }
      nullKeys += ParquetKeys.readKeyHashes(conf, file, schema, fileColumns, CuckooFilter.DEFAULT_SEED, h -> {
        rows[0]++;
        hashes.accept(h);
      });
    }
    long[] distinct = hashes.toSortedArray();
    int distinctKeys = distinct.length;
    long expected = sizing.expectedItems()
        .orElse(Math.max(16, (long) Math.ceil(distinctKeys * sizing.headroom()) + 16));
    FilterParameters parameters;
    try {
      parameters = CuckooFilter.builder().expectedItems(expected).fpp(sizing.fpp()).parameters();
    } catch (IllegalArgumentException e) {
      throw new InputException("cannot size a filter for the " + distinctKeys + " distinct keys of --input at --fpp "
          + sizing.fpp() + ": " + e.getMessage(), e);
    }
    CanonicalBuilder builder = new CanonicalBuilder(parameters, true);
    builder.addHashes(distinct, distinctKeys); // turned into entry codes in place: no second copy
    CuckooFilter filter;
    try {
      filter = builder.build();
    } catch (FilterFullException e) {
      throw new InputException("the " + distinctKeys + " distinct keys do not fit a filter sized for "
          + "--expected-items " + expected + "; raise it, or leave it out to size for the keys", e);
    }
    List<KeySchema.Column> keyColumns = new ArrayList<>();
    for (ParquetKeys.KeyColumn c : columns) {
      keyColumns.add(c.schemaColumn());
    }
    PrintWriter out = out();
    out.println("read " + (rows[0] + nullKeys) + " rows of " + files.size() + " file(s): " + distinctKeys
        + " distinct keys, " + nullKeys + " null keys left out");
    out.println("built a filter of " + KeySchema.describe(keyColumns) + ": " + Publishing.statistics(filter));
    // Nullable, as Spark reads every column of a file source.
    FilterVersion published = Publishing.publishOn(store, parent, filter, KeySchema.json(keyColumns, charTypes),
        source != null ? source : "parquet " + String.join(", ", inputs), "cuckoo " + spec.name(), newKeys);
    out.println("published " + published);
    return ExitCodes.OK;
  }

  private static void requireSameTypes(List<ParquetKeys.KeyColumn> expected, Path expectedFile,
      List<ParquetKeys.KeyColumn> actual, Path file) {
    for (int i = 0; i < expected.size(); i++) {
      ParquetKeys.KeyColumn e = expected.get(i);
      ParquetKeys.KeyColumn a = actual.get(i);
      if (!e.schemaColumn().category().equals(a.schemaColumn().category())) {
        throw new InputException("key column " + a.name() + " is " + a.schemaColumn().sqlType() + " in " + file
            + " but " + e.schemaColumn().sqlType() + " in " + expectedFile + "; the files must agree");
      }
    }
  }

  /** The data files of {@code --input}, in path order (so that every run reads them alike). */
  private List<Path> parquetFiles(Configuration conf) throws IOException {
    List<Path> files = new ArrayList<>();
    for (String input : inputs) {
      Path path = new Path(input);
      FileSystem fs = path.getFileSystem(conf);
      FileStatus[] matches = fs.globStatus(path);
      if (matches == null || matches.length == 0) {
        throw new InputException("--input " + input + ": the path does not exist");
      }
      for (FileStatus match : matches) {
        if (match.isFile()) {
          if (!hiddenName(match.getPath()) && match.getLen() > 0) { // a glob's match too: _SUCCESS, .crc files
            files.add(match.getPath());
          }
          continue;
        }
        // A directory is read whatever its own name (Spark reads an input directory named _staging, or a glob's
        // match of such a name): only the names below it count.
        RemoteIterator<LocatedFileStatus> it = fs.listFiles(match.getPath(), true);
        while (it.hasNext()) {
          LocatedFileStatus file = it.next();
          if (!hidden(match.getPath(), file.getPath()) && file.getLen() > 0) {
            files.add(file.getPath());
          }
        }
      }
    }
    if (files.isEmpty()) {
      throw new InputException("--input " + String.join(" ", inputs) + ": no data files");
    }
    files.sort(null);
    return files;
  }

  /**
   * Like Spark: a file is not data if its name or a directory's name below the input is hidden (the input directory's
   * own name does not count). Files of length 0 are not data either: Spark reads no rows of them
   * ({@code PartitioningAwareFileIndex} lists only non-empty files), and they are no Parquet files to read.
   */
  private static boolean hidden(Path root, Path file) {
    for (Path p = file; p != null && !p.equals(root); p = p.getParent()) {
      if (hiddenName(p)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether Spark leaves a path out of a dataset, as it does every path its listing or a glob finds (Spark's
   * {@code HadoopFSUtils.shouldFilterOutPathName}, but for the summary files {@code _metadata}, which hold no rows).
   */
  private static boolean hiddenName(Path path) {
    String name = path.getName();
    return (name.startsWith("_") && !name.contains("=")) || name.startsWith(".") || name.endsWith("._COPYING_");
  }
}
