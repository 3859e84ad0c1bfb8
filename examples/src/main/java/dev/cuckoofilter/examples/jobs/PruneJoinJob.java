package dev.cuckoofilter.examples.jobs;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;
import static dev.cuckoofilter.spark.util.ScalaCollections.seq;

import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.examples.common.InputException;
import dev.cuckoofilter.examples.common.Locations;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.prune.JoinPruning;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.FilterVersionNotFoundException;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.UnsupportedFileSystemException;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.catalog.CatalogTablePartition;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GetStructField;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.datasources.CatalogFileIndex;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Joins a large dataset with another one after pruning the large one with a stored filter of the other's
 * keys (semi-join pruning: rows whose key cannot match are dropped before the shuffle), and writes the
 * result. Only join types whose result pruning cannot change are accepted ({@link JoinPruning}).
 *
 * <p>The stored filter must hold every key of {@code --join-with}, that is, be built or updated from that
 * dataset: a key missing from the filter would lose its matches.
 */
@Command(name = "prune-join", sortOptions = false, usageHelpAutoWidth = true,
    description = "Prunes a large dataset with a stored cuckoo filter of another dataset's keys, joins the two and "
        + "writes the result.")
public final class PruneJoinJob extends SparkJob {
  /** Formats the result can be written in. */
  enum OutputFormat {
    PARQUET, ORC, CSV, JSON;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** What to do when the output exists. */
  enum Mode {
    /** Refuse, before any work. */
    ERROR(SaveMode.ErrorIfExists),
    OVERWRITE(SaveMode.Overwrite),
    APPEND(SaveMode.Append);

    final SaveMode saveMode;

    Mode(SaveMode saveMode) {
      this.saveMode = saveMode;
    }

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** How executors get the filter. */
  enum Load {
    /** Broadcast filters up to {@link FilterStore#BROADCAST_MAX_BYTES}, let executors load larger ones. */
    AUTO,
    /** The driver reads the filter and broadcasts it. */
    BROADCAST,
    /** Each executor reads the filter from the store, once per JVM; the driver never holds it. */
    EXECUTORS;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  @Option(names = "--location", required = true, paramLabel = "URI", description = "The filter location.")
  String location;

  private long version;

  @Option(names = "--input", required = true, paramLabel = "PATH|TABLE",
      description = "The large side of the join, pruned with the filter before the join.")
  String input;

  @Option(names = "--keys", split = ",", paramLabel = "COLUMN",
      description = "Its key columns, in the filter's key order (default: the filter's key column names).")
  List<String> keys;

  @Option(names = "--join-with", required = true, paramLabel = "PATH|TABLE",
      description = "The other side of the join, whose keys the filter holds.")
  String joinWith;

  @Option(names = "--join-keys", split = ",", paramLabel = "COLUMN",
      description = "Its key columns, in the same order (default: those of --keys).")
  List<String> joinKeys;

  @Option(names = "--join-format", paramLabel = "FORMAT",
      description = "Format of --join-with, if it differs from --format.")
  DatasetOptions.Format joinFormat;

  private String joinType;

  @Option(names = "--output", required = true, paramLabel = "PATH", description = "Where to write the join.")
  String output;

  @Option(names = "--output-format", paramLabel = "FORMAT", defaultValue = "parquet",
      description = "Format of the result: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  OutputFormat outputFormat;

  @Option(names = "--mode", paramLabel = "MODE", defaultValue = "error",
      description = "What to do if --output exists: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  Mode mode;

  @Option(names = "--load", paramLabel = "HOW", defaultValue = "auto",
      description = "How executors get the filter: auto (broadcast up to 64 MiB, else loaded by the executors), "
          + "broadcast, or executors (each executor reads it from the store once).")
  Load load;

  @Mixin
  DatasetOptions dataset;

  @Option(names = "--version", paramLabel = "N", description = "The filter version to use (default: the latest).")
  void setVersion(long value) {
    if (value < 1) {
      throw new ParameterException(spec.commandLine(), "--version must be 1 or more, got " + value);
    }
    version = value;
  }

  @Option(names = "--join-type", paramLabel = "TYPE", defaultValue = "inner",
      description = "inner, left_semi or right_outer: the join types whose result pruning the left side (--input) "
          + "cannot change (default: ${DEFAULT-VALUE}).")
  void setJoinType(String value) {
    String refusal;
    try {
      refusal = JoinPruning.refusal(value, JoinPruning.Side.LEFT);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--join-type: " + e.getMessage());
    }
    if (refusal != null) {
      throw new ParameterException(spec.commandLine(), "--join-type " + value + ": " + refusal);
    }
    joinType = JoinPruning.normalize(value);
  }

  /** Runs the job; see {@link SparkJob#runAndExit}. */
  public static void main(String[] args) {
    runAndExit(new PruneJoinJob(), args);
  }

  @Override
  int run(SparkSession spark, PrintWriter out) throws Exception {
    if (mode == Mode.ERROR) {
      requireAbsent(spark);
    }
    FilterStore store = Locations.open(location, spark.sessionState().newHadoopConf(), "--location");
    SparkCuckooFilter filter = storedFilter(store, spark);
    // The stored key columns are column names: quoted, they name exactly those top-level columns (a name with a
    // dot is not a struct field of another column), as --keys given on the command line are expressions.
    List<String> bigKeys = keys != null ? keys : KeyColumns.quotedNames(filter.keyFields());
    List<String> smallKeys = joinKeys != null ? joinKeys : bigKeys;
    Dataset<Row> big = dataset.read(spark, input, "--input");
    KeyColumns.requireMatching(big, bigKeys, filter.keyFields(), "--input " + input, store.location());
    Dataset<Row> small = dataset.read(spark, joinWith, "--join-with", joinFormat != null ? joinFormat : dataset.format);
    KeyColumns.requireMatching(small, smallKeys, filter.keyFields(), "--join-with " + joinWith, store.location());
    // The filter holds --join-with's keys under its column names: those names in another order probe other keys.
    KeyColumns.requireFilterOrder(small, smallKeys, filter.keyFields(), "--join-with " + joinWith, store.location());
    requireSeparateOutput(spark, store, big, small);

    Dataset<Row> pruned = filter.prune(big, bigKeys.toArray(new String[0]));
    Column structKeyWithNullField = structKeyWithNullField(big, bigKeys);
    if (structKeyWithNullField != null) {
      // The join matches struct keys with null fields (struct(1, null) = struct(1, null)), which the filter leaves out
      // as null keys and its probe drops: such rows are kept without a probe.
      pruned = pruned.union(big.where(structKeyWithNullField));
    }
    // USING takes names, not expressions: the names of the columns both sides' keys name, if they are the same.
    List<String> usingKeys = KeyColumns.commonColumnNames(big, bigKeys, small, smallKeys);
    Dataset<Row> joined = join(pruned, small, bigKeys, smallKeys, usingKeys);
    requireDistinctColumnNames(spark, joined);
    try {
      joined.write().mode(mode.saveMode).format(outputFormat.toString()).save(output);
    } catch (Exception e) { // an AnalysisException, which Java sees as checked
      // found by Spark's writer before it runs a job: a column the format cannot hold (a struct as CSV)
      if (e instanceof AnalysisException && "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE"
          .equals(((AnalysisException) e).getErrorClass())) {
        throw new InputException("--output " + output + ": cannot write the join as " + outputFormat + ": "
            + e.getMessage() + " Choose another --output-format", e);
      }
      throw e;
    }
    // The counters include --join-with rows when Spark copies the predicate to that side of the join
    // (InferFiltersFromConstraints), which it keeps all of: docs/JOBS.md, prune-join.
    if (keysArePartitionColumns(big, bigKeys)) {
      // With CuckooFilterExtensions the connector counts those probes as partitions, and rows (of --join-with) apart.
      String probes = filter.partitionsIn() == 0 ? filter.rowsIn() + " probes, " + filter.rowsOut() + " kept"
          : filter.partitionsIn() + " partitions probed, " + filter.partitionsOut() + " kept; " + filter.rowsIn()
              + " rows probed, " + filter.rowsOut() + " kept";
      out.println("pruned --input with " + filter + ": the key columns are partition columns of --input: Spark probed "
          + "the filter with partition values to choose the partitions to read, not with its rows (" + probes + ")");
    } else {
      out.println("pruned --input with " + filter + ": the filter was probed with " + filter.rowsIn() + " rows and "
          + "kept " + filter.rowsOut() + (structKeyWithNullField == null ? ""
              : " (rows whose struct key has a null field were kept without a probe: the join matches them)"));
    }
    out.println("wrote the " + joinType + " join to " + output + " (" + outputFormat + ")");
    return ExitCodes.OK;
  }

  private SparkCuckooFilter storedFilter(FilterStore store, SparkSession spark) throws IOException {
    try {
      if (load == Load.AUTO) {
        return version > 0 ? store.sparkFilter(spark, version) : store.sparkFilterLatest(spark);
      }
      boolean broadcast = load == Load.BROADCAST;
      return version > 0 ? store.sparkFilter(spark, version, broadcast) : store.sparkFilterLatest(spark, broadcast);
    } catch (FilterVersionNotFoundException e) {
      throw Locations.damagedIfRecorded(store, e); // a data file missing under its commit record: damaged
    }
  }

  /**
   * Whether every key of {@code data} is a partition column of the one file relation it reads (a partitioned table or
   * a dataset of {@code col=value} directories): Spark then prunes its partitions with the filter's probe, evaluated
   * with each partition's values, and no row is probed.
   */
  private static boolean keysArePartitionColumns(Dataset<Row> data, List<String> keys) {
    List<LogicalRelation> relations = new ArrayList<>();
    for (LogicalPlan leaf : list(data.queryExecution().analyzed().collectLeaves())) {
      if (leaf instanceof LogicalRelation relation && relation.relation() instanceof HadoopFsRelation) {
        relations.add(relation);
      }
    }
    if (relations.size() != 1) {
      return false;
    }
    LogicalRelation relation = relations.get(0);
    int partitionColumns = ((HadoopFsRelation) relation.relation()).partitionSchema().size();
    List<? extends Attribute> output = list(relation.output());
    List<? extends Attribute> partitions = output.subList(output.size() - partitionColumns, output.size());
    for (String key : keys) {
      Expression column = data.col(key).expr();
      if (!(column instanceof Attribute attribute
          && partitions.stream().anyMatch(p -> p.exprId().equals(attribute.exprId())))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The rows of {@code data} whose keys are not null and whose struct-typed key has a null field (at any depth), or
   * null if no key is a struct. Spark's join compares structs field by field with null fields equal
   * ({@code struct(1, null) = struct(1, null)} is true), while a filter leaves out, and its probe drops, a key with a
   * null component: pruned, such rows would lose their matches.
   */
  private static Column structKeyWithNullField(Dataset<Row> data, List<String> keys) {
    Column keysPresent = null;
    Column nullField = null;
    for (String key : keys) {
      Column column = data.col(key);
      keysPresent = keysPresent == null ? column.isNotNull() : keysPresent.and(column.isNotNull());
      DataType type = data.select(column).schema().fields()[0].dataType();
      Column anyNull = type instanceof StructType struct ? anyFieldNull(column, struct) : null;
      if (anyNull != null) {
        nullField = nullField == null ? anyNull : nullField.or(anyNull);
      }
    }
    return nullField == null ? null : keysPresent.and(nullField);
  }

  /** Whether a field of {@code struct}, at any depth, is null; null for a struct without fields. */
  private static Column anyFieldNull(Column struct, StructType type) {
    Column out = null;
    StructField[] fields = type.fields();
    for (int i = 0; i < fields.length; i++) {
      Column field = new Column(new GetStructField(struct.expr(), i, scala.Option.apply(fields[i].name())));
      Column isNull = fields[i].dataType() instanceof StructType inner ? anyFieldNull(field, inner) : field.isNull();
      if (isNull != null) {
        out = out == null ? isNull : out.or(isNull);
      }
    }
    return out;
  }

  /** Equally named keys join with {@code USING} (one copy of each key column), others on equality. */
  private Dataset<Row> join(Dataset<Row> big, Dataset<Row> small, List<String> bigKeys, List<String> smallKeys,
      List<String> usingKeys) {
    if (usingKeys != null) {
      return big.join(small, seq(usingKeys), joinType);
    }
    Column condition = null;
    for (int i = 0; i < bigKeys.size(); i++) {
      Column equal = big.col(bigKeys.get(i)).equalTo(small.col(smallKeys.get(i)));
      condition = condition == null ? equal : condition.and(equal);
    }
    return big.join(small, condition, joinType);
  }

  /**
   * Refuses a join whose result has two columns of one name (as Spark's writers compare names: ignoring case unless
   * {@code spark.sql.caseSensitive}), which no format can be written with: a column of both datasets that is not a
   * key joined with USING, such as the struct column of a key {@code s.x} of both sides. Analysis only, before any
   * Spark job, rather than a failed write once the work is done.
   */
  private void requireDistinctColumnNames(SparkSession spark, Dataset<Row> joined) {
    boolean caseSensitive = spark.sessionState().conf().caseSensitiveAnalysis();
    Map<String, List<String>> byName = new LinkedHashMap<>();
    for (String name : joined.columns()) {
      byName.computeIfAbsent(caseSensitive ? name : name.toLowerCase(Locale.ROOT), n -> new ArrayList<>()).add(name);
    }
    for (List<String> names : byName.values()) {
      if (names.size() > 1) {
        String named = names.stream().distinct().count() == 1 ? names.get(0) : String.join(" and ", names);
        throw new InputException("the join of --input " + input + " and --join-with " + joinWith + " would have "
            + names.size() + " columns named " + named + ", and a result with two columns of one name cannot be "
            + "written: only keys that are columns of the same name on both sides are joined into one column (a "
            + "struct field key such as s.x keeps both sides' struct columns); write one dataset with that column "
            + "renamed or dropped");
      }
    }
  }

  /**
   * Refuses an {@code --output} that is, contains or lies inside the filter location or a dataset the job
   * reads (their paths are valid by now; a table's or view's, the directories its files are read from): writing there
   * (overwrite deletes the directory first) would destroy the filter store or the input, or add files to them that
   * their readers then trip over.
   */
  private void requireSeparateOutput(SparkSession spark, FilterStore store, Dataset<Row> big, Dataset<Row> small)
      throws IOException {
    Configuration conf = spark.sessionState().newHadoopConf();
    Path out;
    try {
      out = qualified(new Path(output), conf);
    } catch (UnsupportedFileSystemException | IllegalArgumentException e) {
      throw new InputException("--output " + output + ": cannot access the path: " + e.getMessage(), e);
    }
    if (!out.getFileSystem(conf).exists(out)) {
      Locations.requireCreatable(out, out.getFileSystem(conf), "--output " + output, "output");
    }
    // The location is a directory, not a pattern (its name may hold [ or {): it is compared as it is.
    requireApart(out, "--location", location, List.of(new Path(store.location())), conf);
    requireApart(out, "--input", input, readPaths(spark, input, dataset.format, big, conf), conf);
    requireApart(out, "--join-with", joinWith,
        readPaths(spark, joinWith, joinFormat != null ? joinFormat : dataset.format, small, conf), conf);
  }

  /**
   * The paths a dataset is read from: a path and what its glob matches (Spark reads a path as a glob), or, for a
   * table or view, the directories of the file relations it reads (a partitioned table's and its partitions').
   */
  private static List<Path> readPaths(SparkSession spark, String pathOrTable, DatasetOptions.Format format,
      Dataset<Row> data, Configuration conf) throws IOException {
    List<Path> paths = new ArrayList<>();
    if (format == DatasetOptions.Format.TABLE) {
      for (LogicalPlan leaf : list(data.queryExecution().analyzed().collectLeaves())) {
        if (leaf instanceof LogicalRelation relation && relation.relation() instanceof HadoopFsRelation files) {
          paths.addAll(list(files.location().rootPaths()));
          if (files.location() instanceof CatalogFileIndex) {
            // A partitioned table whose partitions the catalog tracks reads each from the partition's location,
            // which ALTER TABLE ... ADD PARTITION ... LOCATION puts anywhere, not only below the table's.
            for (CatalogTablePartition partition : list(spark.sessionState().catalog()
                .listPartitions(relation.catalogTable().get().identifier(), scala.Option.empty()))) {
              paths.add(new Path(partition.location()));
            }
          }
        }
      }
      return paths;
    }
    Path path = new Path(pathOrTable);
    paths.add(path);
    FileStatus[] matches = path.getFileSystem(conf).globStatus(path);
    if (matches != null) {
      for (FileStatus m : matches) {
        paths.add(m.getPath());
      }
    }
    return paths;
  }

  /** Refuses {@code out} if it is, contains or lies in one of {@code paths}. */
  private void requireApart(Path out, String option, String value, List<Path> paths, Configuration conf)
      throws IOException {
    for (Path path : paths) {
      Path p = qualified(path, conf);
      if (nested(out, p) || nested(p, out)) {
        throw new InputException("--output " + output + " overlaps " + option + " " + value + ": writing the join "
            + "there would damage what the job reads" + (option.equals("--location") ? " (the filter store)" : "")
            + "; choose another --output");
      }
    }
  }

  /**
   * {@code path} qualified, with the authority of a file system that has a service name (an HDFS NameNode: its
   * address and port) replaced by that name, so that a NameNode spelled by another of its host's names or without its
   * default port is one file system; a local path with its symbolic links resolved.
   */
  private static Path qualified(Path path, Configuration conf) throws IOException {
    FileSystem fs = path.getFileSystem(conf);
    URI qualified = fs.makeQualified(path).toUri();
    if ("file".equals(qualified.getScheme())) {
      return new Path("file", null, realPath(java.nio.file.Path.of(qualified.getPath())).toString());
    }
    String service = fs.getCanonicalServiceName();
    return service == null ? new Path(qualified) : new Path(qualified.getScheme(), service, qualified.getPath());
  }

  /**
   * A local path with the symbolic links on its way resolved (those of its longest existing part; the rest does not
   * exist yet), so that a path reached through a link to the filter location or an input is that directory.
   */
  private static java.nio.file.Path realPath(java.nio.file.Path path) throws IOException {
    java.nio.file.Path existing = path;
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    return existing == null ? path : existing.toRealPath().resolve(existing.relativize(path));
  }

  /** Whether {@code inner} is {@code outer} or lies below it. */
  private static boolean nested(Path inner, Path outer) {
    for (Path p = inner; p != null; p = p.getParent()) {
      if (p.equals(outer)) {
        return true;
      }
    }
    return false;
  }

  private void requireAbsent(SparkSession spark) throws IOException {
    boolean exists;
    try {
      Path path = new Path(output);
      exists = path.getFileSystem(spark.sessionState().newHadoopConf()).exists(path);
    } catch (UnsupportedFileSystemException | IllegalArgumentException e) { // also "Wrong FS" of a path it refuses
      throw new InputException("--output " + output + ": cannot access the path: " + e.getMessage(), e);
    }
    if (exists) {
      throw new InputException("--output " + output + " already exists; choose another path or --mode overwrite");
    }
  }
}
