package dev.cuckoofilter.spark.store;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.FilterFormatException;
import dev.cuckoofilter.core.format.FilterFormat;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.expressions.FilterHandle;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.spark.sql.SparkSession;

/**
 * Versioned filters at a Hadoop file system location ({@code file:}, {@code hdfs:}, {@code s3a:}, ...),
 * kept next to the data they describe and reused across jobs. The layout, the commit protocol and the
 * guarantees are specified in docs/STORE.md; in short:
 *
 * <ul>
 *   <li>a version is published atomically: readers see all of it or nothing, also on S3;
 *   <li>versions are immutable, numbered 1, 2, 3, ...; each names its parent (the version it replaced);
 *   <li>of two writers publishing on the same parent, exactly one succeeds; the other gets a
 *       {@link FilterConflictException} and nothing it wrote stays visible;
 *   <li>a writer that dies leaves the published versions intact; what it left behind is removed by
 *       {@link #cleanLeftovers(Duration)};
 *   <li>every read is verified: a damaged file gives a {@link StoredFilterCorruptException}, a removed
 *       version a {@link FilterVersionNotFoundException}, never another filter.
 * </ul>
 *
 * <pre>{@code
 * FilterStore store = FilterStore.open("s3a://lake/filters/active_customers", spark);
 * SparkCuckooFilter built = CuckooFilters.build(activeCustomers, "customer_id");
 * long parent = store.latest().map(FilterVersion::version).orElse(FilterMetadata.NO_PARENT);
 * store.publish(built.filter(), FilterMetadata.of(built.filter(), built.keyFields(), "lake.customers where active",
 *     parent));
 *
 * // another job, later: executors load the filter themselves, once per JVM
 * Dataset<Row> orders = store.sparkFilterLatest(spark, false).prune(allOrders, "customer_id");
 * }</pre>
 *
 * A store holds no resources of its own (the file system is Hadoop's cached instance) and is safe to
 * use from several threads.
 */
public final class FilterStore {
  /** Commit records are a few kilobytes; anything much larger is not one. */
  private static final int MAX_COMMIT_BYTES = 1 << 20;
  /** Attempts of {@link #readLatest()} when retention removes the version it is about to read. */
  private static final int READ_LATEST_ATTEMPTS = 3;

  private final String location;
  private final StoreLayout layout;
  private final FileSystem fs;
  private final Configuration conf;
  private ExclusiveCreate exclusiveCreate;

  private FilterStore(Path root, FileSystem fs, Configuration conf) {
    this.location = root.toString();
    this.layout = new StoreLayout(root);
    this.fs = fs;
    this.conf = conf;
  }

  /**
   * The filter location at {@code locationUri}, a directory (created on the first publish). A URI
   * without a scheme is resolved against {@code fs.defaultFS}, like Spark paths. Does no I/O beyond
   * obtaining the file system.
   *
   * @param conf the Hadoop configuration to reach the file system with (credentials, endpoints, ...)
   * @throws IllegalArgumentException if the URI is empty or not a valid path
   * @throws IOException              if no file system serves the URI's scheme
   */
  public static FilterStore open(String locationUri, Configuration conf) throws IOException {
    if (locationUri == null || locationUri.isBlank()) {
      throw new IllegalArgumentException("FilterStore.open: locationUri is empty; expected a directory URI such as "
          + "hdfs://namenode/filters/customers or s3a://bucket/filters/customers");
    }
    if (conf == null) {
      throw new IllegalArgumentException("FilterStore.open: conf is null");
    }
    Path path;
    try {
      path = new Path(locationUri);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("FilterStore.open: locationUri \"" + locationUri + "\" is not a valid path: "
          + e.getMessage(), e);
    }
    FileSystem fs;
    try {
      fs = path.getFileSystem(conf);
    } catch (IOException e) {
      throw new IOException("filter location " + locationUri + ": cannot obtain its file system: " + e.getMessage(), e);
    }
    Path root = fs.makeQualified(path);
    if (fs instanceof LocalFileSystem) {
      // The raw local file system: no .crc side files (the format and the commit records carry CRC32Cs),
      // and java.nio access for the atomic commit.
      fs = ((LocalFileSystem) fs).getRawFileSystem();
    }
    return new FilterStore(root, fs, conf);
  }

  /** {@link #open(String, Configuration)} with the session's Hadoop configuration (including {@code spark.hadoop.*}). */
  public static FilterStore open(String locationUri, SparkSession spark) throws IOException {
    if (spark == null) {
      throw new IllegalArgumentException("FilterStore.open: spark is null");
    }
    return open(locationUri, spark.sessionState().newHadoopConf());
  }

  /** The location's qualified URI. */
  public String location() {
    return location;
  }

  // ------------------------------------------------------------------------------------------ reading

  /** The published versions, ascending by version number. Reads each version's commit record. */
  public List<FilterVersion> versions() throws IOException {
    List<FilterVersion> out = new ArrayList<>();
    for (long v : versionNumbers()) {
      CommitRecord r = tryReadCommit(v);
      if (r != null) { // else removed by retention since the listing
        out.add(r.toVersion(location));
      }
    }
    return out;
  }

  /** The latest version, or empty if nothing was published at this location. */
  public Optional<FilterVersion> latest() throws IOException {
    CommitRecord r = latestCommit();
    return r == null ? Optional.empty() : Optional.of(r.toVersion(location));
  }

  /**
   * A version's filter and metadata, verified: the filter file must be a valid filter (docs/FORMAT.md)
   * and exactly the file the commit record describes.
   *
   * @throws FilterVersionNotFoundException if the version does not exist or is removed while being read
   * @throws StoredFilterCorruptException   if a file of the version is damaged
   */
  public StoredFilter read(long version) throws IOException {
    requireVersionNumber(version);
    CommitRecord r = readCommit(version);
    FilterMetadata metadata = typedMetadata(r);
    return new StoredFilter(r.toVersion(location), metadata, readFilter(r));
  }

  /**
   * A version's metadata alone, from its commit record: the filter file is not read (so not verified
   * either), which is what deciding whether to use a version needs.
   *
   * @throws FilterVersionNotFoundException if the version does not exist
   * @throws StoredFilterCorruptException   if its commit record is damaged
   */
  public FilterMetadata metadata(long version) throws IOException {
    requireVersionNumber(version);
    return typedMetadata(readCommit(version));
  }

  /**
   * {@link #read(long)} without Spark: the metadata as the commit record holds it, with the key columns as
   * JSON. Reads and verifies exactly as {@code read} does; needs only Hadoop's client on the classpath.
   *
   * @throws FilterVersionNotFoundException if the version does not exist or is removed while being read
   * @throws StoredFilterCorruptException   if a file of the version is damaged
   */
  public StoredVersion readVersion(long version) throws IOException {
    requireVersionNumber(version);
    CommitRecord r = readCommit(version);
    return new StoredVersion(r.toVersion(location), r.metadata(), readFilter(r));
  }

  /**
   * The latest version's filter and metadata ({@link #read(long)}).
   *
   * @throws FilterVersionNotFoundException if nothing was published at this location
   */
  public StoredFilter readLatest() throws IOException {
    StoredVersion latest = readLatestVersion();
    return new StoredFilter(latest.version(), typedMetadata(latest.version().version(), latest.metadata()),
        latest.filter());
  }

  /**
   * {@link #readLatest()} without Spark ({@link #readVersion(long)}).
   *
   * @throws FilterVersionNotFoundException if nothing was published at this location
   */
  public StoredVersion readLatestVersion() throws IOException {
    for (int attempt = 1; ; attempt++) {
      CommitRecord r = latestCommit();
      if (r == null) {
        throw new FilterVersionNotFoundException(location, -1, "location " + location + " has no filter version: "
            + "nothing was published there");
      }
      try {
        return new StoredVersion(r.toVersion(location), r.metadata(), readFilter(r));
      } catch (FilterVersionNotFoundException e) {
        // Removed under us, which retention only does once a newer version exists: read that one.
        if (attempt == READ_LATEST_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  // ------------------------------------------------------------------------------------------ writing

  /**
   * Publishes {@code filter} as the version after {@code metadata.parentVersion()}, which must be the
   * latest version (or {@link FilterMetadata#NO_PARENT} for an empty location): optimistic concurrency.
   * Writes the filter to a new data file, then commits the version atomically (docs/STORE.md). The
   * filter must not be modified while it is being published.
   *
   * @return the new version
   * @throws FilterConflictException  if another writer published on the same parent first, or the parent
   *                                  is older than the latest version; nothing of this publish remains
   * @throws IllegalArgumentException if the metadata does not describe the filter, or names a parent
   *                                  newer than the latest version
   * @throws KeyColumnsChangedException if the key columns are not those of the parent version (other
   *                                  names, or types that do not hash alike; see
   *                                  {@link #publishWithNewKeys(CuckooFilter, FilterMetadata)})
   */
  public FilterVersion publish(CuckooFilter filter, FilterMetadata metadata) throws IOException {
    return publish(filter, metadata, PublishHook.NONE);
  }

  /**
   * {@link #publish(CuckooFilter, FilterMetadata)} without Spark, with the key columns as Spark schema JSON.
   * Which types the key columns have is not checked here (that needs Spark's type classes): the caller
   * must describe them as Spark would, or Spark readers refuse the version as corrupt. That they are the
   * parent version's key columns is checked.
   */
  public FilterVersion publish(CuckooFilter filter, VersionMetadata metadata) throws IOException {
    return publish(filter, metadata, PublishHook.NONE);
  }

  /**
   * {@link #publish(CuckooFilter, FilterMetadata)} that may re-key the location: the key columns may differ
   * from the parent version's. Probes and updates made for the old key columns are refused from this
   * version on; use it only to change a location's key deliberately.
   */
  public FilterVersion publishWithNewKeys(CuckooFilter filter, FilterMetadata metadata) throws IOException {
    if (metadata == null) {
      throw new IllegalArgumentException("publishWithNewKeys: metadata is null");
    }
    return publish(filter, metadata.toVersionMetadata(), PublishHook.NONE, true);
  }

  /** {@link #publishWithNewKeys(CuckooFilter, FilterMetadata)} without Spark (see {@link #publish(CuckooFilter, VersionMetadata)}). */
  public FilterVersion publishWithNewKeys(CuckooFilter filter, VersionMetadata metadata) throws IOException {
    return publish(filter, metadata, PublishHook.NONE, true);
  }

  /**
   * Checks, reading only the latest commit record, that a version with these key columns can be published
   * on the latest version without re-keying the location: the check {@link #publish} makes, for jobs that
   * want to fail before computing a filter. Nothing is checked on a location without versions.
   *
   * @param keyColumnsJson the key columns as Spark schema JSON ({@code StructType.json()})
   * @throws KeyColumnsChangedException if they differ from the latest version's
   */
  public void requireKeyColumnsOfLatest(String keyColumnsJson) throws IOException {
    List<KeyColumnsJson.Column> keys = KeyColumnsJson.columns(VersionMetadata.normalizedKeyColumns(keyColumnsJson));
    CommitRecord latest = latestCommit();
    if (latest != null) {
      requireSameKeys(latest, keys, latest.version() + 1);
    }
  }

  /** Where a test can stop a writer between writing its data file and committing. */
  interface PublishHook {
    PublishHook NONE = dataFile -> { };

    void dataWritten(Path dataFile) throws IOException;
  }

  FilterVersion publish(CuckooFilter filter, FilterMetadata metadata, PublishHook hook) throws IOException {
    if (metadata == null) {
      throw new IllegalArgumentException("publish: metadata is null; use FilterMetadata.of(filter, keyColumns, "
          + "source, parentVersion)");
    }
    return publish(filter, metadata.toVersionMetadata(), hook);
  }

  FilterVersion publish(CuckooFilter filter, VersionMetadata metadata, PublishHook hook) throws IOException {
    return publish(filter, metadata, hook, false);
  }

  private FilterVersion publish(CuckooFilter filter, VersionMetadata metadata, PublishHook hook, boolean newKeys)
      throws IOException {
    if (filter == null) {
      throw new IllegalArgumentException("publish: filter is null");
    }
    if (metadata == null) {
      throw new IllegalArgumentException("publish: metadata is null; use VersionMetadata.of(filter, keyColumnsJson, "
          + "source, parentVersion)");
    }
    requireDescribes(metadata, filter);
    long parent = metadata.parentVersion();
    long version = parent == FilterMetadata.NO_PARENT ? 1 : parent + 1;
    List<Long> existing = versionNumbers();
    long latest = existing.isEmpty() ? FilterMetadata.NO_PARENT : existing.get(existing.size() - 1);
    if (parent > latest) {
      throw new IllegalArgumentException("publish: metadata.parentVersion is " + parent + " but location " + location
          + (latest == FilterMetadata.NO_PARENT ? " has no version yet (the first version has parentVersion -1)"
              : " has no version after " + latest));
    }
    if (parent < latest) {
      throw new FilterConflictException(location, latest, "this writer's parent version is "
          + (parent == FilterMetadata.NO_PARENT ? "none" : String.valueOf(parent)));
    }
    String parentCommitId = null;
    if (parent != FilterMetadata.NO_PARENT) {
      CommitRecord parentRecord = tryReadCommit(parent);
      if (parentRecord == null) {
        throw new FilterConflictException(location, latestNumberOr(parent), "parent version " + parent
            + " was withdrawn or removed meanwhile");
      }
      parentCommitId = parentRecord.commitId();
      if (!newKeys) {
        requireSameKeys(parentRecord, KeyColumnsJson.columns(metadata.keyColumnsJson()), version);
      }
    }
    String commitId = UUID.randomUUID().toString();
    Path dataFile = layout.dataFile(StoreLayout.dataName(version, commitId));
    DataFileRef data = writeData(filter, version, dataFile);
    hook.dataWritten(dataFile);
    CommitRecord record = new CommitRecord(version, commitId, parentCommitId, Instant.now(), data, metadata);
    int recordBytes = record.toJson().length;
    if (recordBytes > MAX_COMMIT_BYTES) {
      // Readers refuse a larger record as damaged: committed, it would be a latest version no one can read or build on.
      deleteQuietly(dataFile); // no commit refers to it
      throw new IllegalArgumentException("publish: the commit record of version " + version + " at location "
          + location + " would be " + recordBytes + " bytes, larger than the " + MAX_COMMIT_BYTES + " readers accept: "
          + "the metadata (source, properties, key columns) is too large. Nothing was published");
    }
    commit(record, dataFile);
    return record.toVersion(location);
  }

  /**
   * Refuses key columns other than {@code parent}'s: probes and updates of the location rely on them. The
   * parent is the latest version when this runs; a version published after it makes this publish a
   * conflict at the commit, so its key columns need no check.
   */
  private void requireSameKeys(CommitRecord parent, List<KeyColumnsJson.Column> keys, long version)
      throws KeyColumnsChangedException {
    List<KeyColumnsJson.Column> parentKeys = KeyColumnsJson.columns(parent.metadata().keyColumnsJson());
    List<String> differences = KeyColumnsJson.differences(parentKeys, keys);
    if (!differences.isEmpty()) {
      throw new KeyColumnsChangedException(location, parent.version(), "location " + location + ": version " + version
          + " would have the key columns (" + KeyColumnsJson.describe(keys) + ") but version " + parent.version()
          + ", the latest, has (" + KeyColumnsJson.describe(parentKeys) + "): " + String.join("; ", differences)
          + ". Nothing was published. Probes and updates of the location use its key columns; to re-key it "
          + "deliberately, publish with publishWithNewKeys (the jobs: --new-keys)");
    }
  }

  private void requireDescribes(VersionMetadata m, CuckooFilter filter) {
    if (m.itemCount() != filter.size()) {
      throw new IllegalArgumentException("publish: metadata.itemCount is " + m.itemCount() + " but the filter holds "
          + filter.size() + " items");
    }
    if (m.capacity() != filter.capacity()) {
      throw new IllegalArgumentException("publish: metadata.capacity is " + m.capacity() + " but the filter has "
          + filter.capacity() + " entries");
    }
    if (m.formatVersion() != FilterFormat.VERSION) {
      throw new IllegalArgumentException("publish: metadata.formatVersion is " + m.formatVersion() + " but filters "
          + "are written in format version " + FilterFormat.VERSION);
    }
  }

  private DataFileRef writeData(CuckooFilter filter, long version, Path dataFile) throws IOException {
    long length = filter.serializedSize();
    FormatChecksums written = new FormatChecksums(length);
    try (FSDataOutputStream out = fs.create(dataFile, false)) {
      filter.writeTo(FormatChecksums.observing(out, written));
      if (out.hasCapability(StreamCapabilities.HSYNC)) {
        out.hsync(); // on disk before any commit can refer to it
      }
    } catch (IOException e) {
      deleteQuietly(dataFile); // no commit refers to it
      throw new IOException("location " + location + ": writing the data file " + dataFile + " of version " + version
          + " failed, nothing was published: " + e.getMessage(), e);
    }
    if (written.position() != length) {
      deleteQuietly(dataFile); // no commit refers to it
      throw new IllegalStateException("location " + location + ": the filter wrote " + written.position()
          + " bytes, announced " + length + " for version " + version + ": was it modified while being published? "
          + "Nothing was published");
    }
    return new DataFileRef(dataFile.getName(), length, written.headerCrc32c(), written.bodyCrc32c());
  }

  /** Creates the commit file, the single atomic step of a publish, and checks what it means. */
  private void commit(CommitRecord record, Path dataFile) throws IOException {
    long version = record.version();
    Path commitFile = layout.commitFile(version);
    boolean created;
    try {
      created = exclusiveCreate().create(commitFile, record.toJson());
    } catch (IOException e) {
      // A lost response leaves the outcome open; the commit file tells.
      CommitRecord now = tryReadCommitQuietly(version);
      if (now == null) {
        // The data file stays: should the commit still land, the version needs it; if not,
        // cleanLeftovers removes it.
        throw new IOException("location " + location + ": committing version " + version + " failed, nothing was "
            + "published (" + e.getMessage() + "); the unreferenced data file " + dataFile + " is left for "
            + "cleanLeftovers", e);
      }
      created = now.commitId().equals(record.commitId());
    }
    if (!created) {
      CommitRecord holder = tryReadCommitQuietly(version);
      if (holder == null || !holder.commitId().equals(record.commitId())) {
        deleteQuietly(dataFile);
        // The name was taken, so the version exists or existed: at least this number won.
        throw new FilterConflictException(location, Math.max(version, latestNumberOr(version)));
      }
      // else an earlier attempt of this very request (retried by a client library) created it
    }
    withdrawIfNumberWasReused(record, commitFile, dataFile);
  }

  /**
   * Exclusive creation only proves that no file of this name existed. Retention frees the names of old
   * versions, so a writer whose parent had become old (and was then removed) between its check of the
   * latest version and its commit can create a commit file below the latest version. That commit
   * replaced nothing, and reporting success would lose the writer's change silently. Retention never
   * removes the latest version and removes in ascending order, so a version above this one then
   * exists that is not built on this commit: withdraw the commit and report the conflict.
   */
  private void withdrawIfNumberWasReused(CommitRecord record, Path commitFile, Path dataFile) throws IOException {
    long version = record.version();
    List<Long> numbers;
    try {
      numbers = versionNumbers();
    } catch (IOException e) {
      throw new IOException("location " + location + ": version " + version + " was committed, but listing the "
          + "versions to check that none was newer failed (" + e.getMessage() + "); list the versions to see whether "
          + version + " is the latest before retrying", e);
    }
    long next = -1;
    for (long v : numbers) {
      if (v > version) {
        next = v;
        break;
      }
    }
    if (next < 0) {
      return;
    }
    if (next == version + 1) {
      CommitRecord child = tryReadCommitQuietly(next);
      if (child != null && record.commitId().equals(child.parentCommitId())) {
        return; // another writer already built on this version
      }
    }
    deleteQuietly(commitFile);
    deleteQuietly(dataFile);
    throw new FilterConflictException(location, numbers.get(numbers.size() - 1), "version "
        + record.metadata().parentVersion() + ", this writer's parent, had been superseded and removed by retention "
        + "before the commit, so the commit of version " + version + " was withdrawn");
  }

  private synchronized ExclusiveCreate exclusiveCreate() throws IOException {
    if (exclusiveCreate == null) {
      exclusiveCreate = ExclusiveCreate.forFileSystem(fs, conf, layout);
    }
    return exclusiveCreate;
  }

  // --------------------------------------------------------------------------------- housekeeping

  /**
   * Removes all but the {@code keepLatest} newest versions, oldest first: for each, the commit file
   * (the version no longer exists), then its data file. Readers of a removed version get a
   * {@link FilterVersionNotFoundException}; jobs that load a version on executors need it until they end.
   *
   * @return how many versions this call removed
   * @throws IllegalArgumentException if {@code keepLatest < 1} (the latest version is always kept)
   */
  public int retain(int keepLatest) throws IOException {
    if (keepLatest < 1) {
      throw new IllegalArgumentException("retain: keepLatest must be at least 1 (the latest version is always kept), "
          + "got " + keepLatest);
    }
    List<Long> numbers = versionNumbers();
    int removed = 0;
    for (int i = 0; i < numbers.size() - keepLatest; i++) {
      long v = numbers.get(i);
      CommitRecord r = tryReadCommitQuietly(v); // unreadable: its data file becomes a leftover
      if (fs.delete(layout.commitFile(v), false)) {
        removed++;
      }
      if (r != null) {
        fs.delete(layout.dataFile(r.data().name()), false);
      }
    }
    return removed;
  }

  /**
   * Deletes files no version refers to that are older than {@code olderThan}: data files of writers
   * that died before committing (or lost a conflict and could not delete them), data files whose
   * version was removed by an interrupted {@link #retain}, and temporary commit files. A data file
   * younger than {@code olderThan} may belong to a writer about to commit, so {@code olderThan} must
   * exceed the longest time a writer can take from finishing its data file to committing (an hour is
   * safe; {@link Duration#ZERO} only when no writer is running).
   *
   * @return how many files were deleted
   */
  public int cleanLeftovers(Duration olderThan) throws IOException {
    if (olderThan == null || olderThan.isNegative()) {
      throw new IllegalArgumentException("cleanLeftovers: olderThan must be zero or positive, got " + olderThan);
    }
    long now = System.currentTimeMillis();
    // An age beyond the epoch (up to Duration's ~292 billion years, more than toMillis() can hold) means no file.
    long cutoff = olderThan.compareTo(Duration.ofMillis(now)) > 0 ? Long.MIN_VALUE : now - olderThan.toMillis();
    // Data files are listed before the commits: a data file committed after the commit listing was
    // then already older than olderThan, which the contract above excludes.
    FileStatus[] dataFiles = listOrEmpty(layout.data);
    FileStatus[] tempFiles = listOrEmpty(layout.temp);
    Set<String> referenced = new HashSet<>();
    Set<Long> unreadable = new HashSet<>();
    for (long v : versionNumbers()) {
      try {
        CommitRecord r = tryReadCommit(v);
        if (r != null) {
          referenced.add(r.data().name());
        }
      } catch (StoredFilterCorruptException e) {
        unreadable.add(v); // what it refers to is unknown: keep every data file of its number
      }
    }
    int deleted = 0;
    for (FileStatus s : dataFiles) {
      String name = s.getPath().getName();
      long v = StoreLayout.versionOfDataName(name);
      if (s.isFile() && v > 0 && s.getModificationTime() < cutoff && !referenced.contains(name)
          && !unreadable.contains(v) && fs.delete(s.getPath(), false)) {
        deleted++;
      }
    }
    for (FileStatus s : tempFiles) {
      if (s.isFile() && s.getModificationTime() < cutoff && fs.delete(s.getPath(), false)) {
        deleted++;
      }
    }
    return deleted;
  }

  // ----------------------------------------------------------------------------------------- Spark

  /**
   * Filters up to this size are broadcast by {@link #sparkFilter(SparkSession, long)}: the driver holds
   * one copy while Spark spreads it peer to peer. Larger ones are read by each executor from the store,
   * which never needs driver memory but costs one read of the file per executor.
   */
  public static final long BROADCAST_MAX_BYTES = 64L << 20;

  /**
   * {@link #sparkFilter(SparkSession, long, boolean)} choosing the path by size: broadcast up to
   * {@link #BROADCAST_MAX_BYTES}, loaded by executors above.
   */
  public SparkCuckooFilter sparkFilter(SparkSession spark, long version) throws IOException {
    requireSession(spark);
    requireVersionNumber(version);
    CommitRecord r = readCommit(version);
    return sparkFilter(spark, r, r.data().bytes() <= BROADCAST_MAX_BYTES);
  }

  /**
   * A version as a {@link SparkCuckooFilter} that prunes with the stored filter and refuses probe keys
   * whose types do not match the stored key columns.
   *
   * @param broadcast true: read the filter here, on the driver, and broadcast it (best for small filters
   *                  or few executors); false: executors read it from the store themselves, once per
   *                  JVM, and the driver never holds it (best for large filters)
   * @throws FilterVersionNotFoundException if the version does not exist
   */
  public SparkCuckooFilter sparkFilter(SparkSession spark, long version, boolean broadcast) throws IOException {
    requireSession(spark);
    requireVersionNumber(version);
    return sparkFilter(spark, readCommit(version), broadcast);
  }

  /** {@link #sparkFilter(SparkSession, long, boolean)} of the latest version. */
  public SparkCuckooFilter sparkFilterLatest(SparkSession spark, boolean broadcast) throws IOException {
    requireSession(spark);
    return sparkFilterOfLatest(spark, false, broadcast);
  }

  /** {@link #sparkFilter(SparkSession, long)} of the latest version. */
  public SparkCuckooFilter sparkFilterLatest(SparkSession spark) throws IOException {
    requireSession(spark);
    return sparkFilterOfLatest(spark, true, false);
  }

  private SparkCuckooFilter sparkFilterOfLatest(SparkSession spark, boolean bySize, boolean broadcast)
      throws IOException {
    for (int attempt = 1; ; attempt++) {
      CommitRecord r = latestCommit();
      if (r == null) {
        throw new FilterVersionNotFoundException(location, -1, "location " + location + " has no filter version: "
            + "nothing was published there");
      }
      try {
        return sparkFilter(spark, r, bySize ? r.data().bytes() <= BROADCAST_MAX_BYTES : broadcast);
      } catch (FilterVersionNotFoundException e) {
        // The broadcast read found it removed after its record was read, which retention only does once a newer
        // version exists: use that one, as readLatest does.
        if (attempt == READ_LATEST_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  private SparkCuckooFilter sparkFilter(SparkSession spark, CommitRecord r, boolean broadcast) throws IOException {
    FilterHandle handle = broadcast
        ? StoredFilterHandles.broadcast(spark, location, r, readFilter(r))
        : StoredFilterHandles.loadedByExecutors(spark, location, r, conf);
    return SparkCuckooFilter.of(spark, handle, typedMetadata(r).keyColumns());
  }

  private FilterMetadata typedMetadata(CommitRecord r) throws StoredFilterCorruptException {
    return typedMetadata(r.version(), r.metadata());
  }

  /**
   * The metadata with Spark types. A record whose key columns Spark cannot read (edited by hand, or
   * written by a tool that described a type Spark does not know) is damaged like an unparseable one.
   */
  private FilterMetadata typedMetadata(long version, VersionMetadata m) throws StoredFilterCorruptException {
    try {
      return FilterMetadata.fromVersionMetadata(m);
    } catch (IllegalArgumentException e) {
      StoredFilterCorruptException corrupt = new StoredFilterCorruptException(location, version,
          layout.commitFile(version).toString(), "not a readable commit record: " + e.getMessage());
      corrupt.initCause(e);
      throw corrupt;
    }
  }

  private static void requireSession(SparkSession spark) {
    if (spark == null) {
      throw new IllegalArgumentException("sparkFilter: spark is null");
    }
  }

  // ---------------------------------------------------------------------------------- internals

  /**
   * Closes the file system if Hadoop's cache does not share it ({@code fs.<scheme>.impl.disable.cache}),
   * for stores opened for a single read. A cached file system is shared and must stay open.
   */
  void closeIfUncached() throws IOException {
    if (conf.getBoolean("fs." + layout.root.toUri().getScheme() + ".impl.disable.cache", false)) {
      fs.close();
    }
  }

  StoreLayout layout() {
    return layout;
  }

  FileSystem fileSystem() {
    return fs;
  }

  /**
   * The committed version numbers, ascending, from the listing of {@code versions/} alone: no commit record
   * is read, so tools that check a location ({@code cuckoo verify}) can reach every version even when some
   * record is damaged, which {@link #versions()} reports by failing.
   */
  public List<Long> versionNumbers() throws IOException {
    FileStatus[] entries;
    try {
      entries = fs.listStatus(layout.versions);
    } catch (FileNotFoundException e) {
      requireNotAFile();
      return List.of();
    } catch (IOException e) {
      throw notAFileOr(e);
    }
    List<Long> numbers = new ArrayList<>();
    for (FileStatus s : entries) {
      long v = StoreLayout.versionOfCommitName(s.getPath().getName());
      if (v > 0 && s.isFile()) {
        numbers.add(v);
      }
    }
    Collections.sort(numbers);
    return numbers;
  }

  private void requireNotAFile() throws IOException {
    if (isAFile()) {
      throw notAFilterLocation();
    }
  }

  private boolean isAFile() throws IOException {
    try {
      return fs.getFileStatus(layout.root).isFile();
    } catch (FileNotFoundException e) {
      return false; // nothing published yet
    }
  }

  private IOException notAFilterLocation() {
    return new IOException("location " + location + " is a file, not a filter location (a directory holding "
        + StoreLayout.VERSIONS_DIR + "/ and " + StoreLayout.DATA_DIR + "/)");
  }

  /**
   * The error to throw for {@code e}, a failure to reach a path below the location: HDFS refuses paths below a
   * file with an AccessControlException ("... (is not a directory)"), which names no filter location, so a
   * location that is a file is reported as such, as on the other file systems; any other failure is {@code e}.
   */
  private IOException notAFileOr(IOException e) {
    try {
      if (isAFile()) {
        IOException notALocation = notAFilterLocation();
        notALocation.initCause(e);
        return notALocation;
      }
    } catch (IOException unknown) {
      e.addSuppressed(unknown);
    }
    return e;
  }

  private FileStatus[] listOrEmpty(Path dir) throws IOException {
    try {
      return fs.listStatus(dir);
    } catch (FileNotFoundException e) {
      requireNotAFile();
      return new FileStatus[0];
    } catch (IOException e) {
      throw notAFileOr(e);
    }
  }

  private CommitRecord latestCommit() throws IOException {
    for (int attempt = 1; ; attempt++) {
      List<Long> numbers = versionNumbers();
      for (int i = numbers.size() - 1; i >= 0; i--) {
        CommitRecord r = tryReadCommit(numbers.get(i));
        if (r != null) {
          return r;
        }
      }
      // Every listed version was removed since the listing: retention does that only once a newer version
      // exists (it never removes the latest), so the location is not empty. List again.
      if (numbers.isEmpty()) {
        return null;
      }
      if (attempt == READ_LATEST_ATTEMPTS) {
        throw new IOException("location " + location + ": the latest version was removed while it was being read, "
            + attempt + " times (last listed: version " + numbers.get(numbers.size() - 1) + "); retention is "
            + "outrunning this reader, try again");
      }
    }
  }

  private long latestNumberOr(long fallback) {
    try {
      List<Long> numbers = versionNumbers();
      return numbers.isEmpty() ? fallback : numbers.get(numbers.size() - 1);
    } catch (IOException e) {
      return fallback;
    }
  }

  /** @throws FilterVersionNotFoundException if the version does not exist */
  CommitRecord readCommit(long version) throws IOException {
    CommitRecord r = tryReadCommit(version);
    if (r == null) {
      requireNotAFile();
      long latest = latestNumberOr(-1);
      throw new FilterVersionNotFoundException(location, version, "location " + location + ": version " + version
          + " does not exist (it was never published, or retention removed it); "
          + (latest < 0 ? "the location has no version" : "the latest version is " + latest));
    }
    return r;
  }

  /** The commit record, or null if the version does not exist. */
  CommitRecord tryReadCommit(long version) throws IOException {
    Path file = layout.commitFile(version);
    byte[] bytes;
    try (FSDataInputStream in = fs.open(file)) {
      bytes = in.readNBytes(MAX_COMMIT_BYTES + 1);
    } catch (FileNotFoundException e) {
      return null;
    } catch (IOException e) {
      throw notAFileOr(e);
    }
    if (bytes.length > MAX_COMMIT_BYTES) {
      throw new StoredFilterCorruptException(location, version, file.toString(), "it is larger than "
          + MAX_COMMIT_BYTES + " bytes, so it is not a commit record");
    }
    try {
      return CommitRecord.parse(bytes, version);
    } catch (CommitRecord.Malformed e) {
      throw new StoredFilterCorruptException(location, version, file.toString(), "not a readable commit record: "
          + e.getMessage());
    }
  }

  private CommitRecord tryReadCommitQuietly(long version) {
    try {
      return tryReadCommit(version);
    } catch (IOException e) {
      return null;
    }
  }

  /** {@link #readFilter(long, DataFileRef)} of a commit record, which must describe the filter read. */
  private CuckooFilter readFilter(CommitRecord r) throws IOException {
    return readFilter(r.version(), r.data(), r.metadata().itemCount(), r.metadata().capacity());
  }

  /**
   * {@link #readFilter(long, DataFileRef)}, checking that the commit record's metadata describes the filter: publish
   * refuses metadata whose item count or capacity are not the filter's, so such a record was edited or damaged.
   */
  CuckooFilter readFilter(long version, DataFileRef data, long itemCount, long capacity) throws IOException {
    CuckooFilter filter = readFilter(version, data);
    String problem = null;
    if (itemCount != filter.size()) {
      problem = "metadata.itemCount is " + itemCount + " but its filter holds " + filter.size() + " items";
    } else if (capacity != filter.capacity()) {
      problem = "metadata.capacity is " + capacity + " but its filter has " + filter.capacity() + " entries";
    }
    if (problem != null) {
      throw new StoredFilterCorruptException(location, version, layout.commitFile(version).toString(),
          "the commit record does not describe its data file " + layout.dataFile(data.name()) + ": " + problem);
    }
    return filter;
  }

  /**
   * Reads and verifies a version's filter from its data file: a valid filter (docs/FORMAT.md) of exactly
   * the length and checksums the commit record names, with nothing after it.
   */
  CuckooFilter readFilter(long version, DataFileRef data) throws IOException {
    Path file = layout.dataFile(data.name());
    FSDataInputStream raw;
    try {
      raw = fs.open(file);
    } catch (FileNotFoundException e) {
      throw removed(version, file);
    }
    try (raw) {
      return readFilter(version, data, file, raw);
    }
  }

  /** {@link #readFilter(long, DataFileRef)} from a stream already open on the data file. */
  CuckooFilter readFilter(long version, DataFileRef data, Path file, InputStream raw) throws IOException {
    try {
      FormatChecksums seen = new FormatChecksums(data.bytes());
      InputStream in = FormatChecksums.observing(raw, seen);
      CuckooFilter filter;
      try {
        filter = CuckooFilter.readFrom(in, data.bytes());
      } catch (FilterFormatException e) {
        throw corrupt(version, file, e.getMessage(), e);
      }
      if (in.read() >= 0) {
        throw corrupt(version, file, "it is longer than the " + data.bytes() + " bytes its commit record names", null);
      }
      if (seen.headerCrc32c() != data.headerCrc32c() || seen.bodyCrc32c() != data.bodyCrc32c()) {
        throw corrupt(version, file, String.format("it is a valid filter but not the one published as this version "
            + "(header/body CRC32C %08X/%08X, the commit record names %08X/%08X): the file was replaced",
            seen.headerCrc32c(), seen.bodyCrc32c(), data.headerCrc32c(), data.bodyCrc32c()), null);
      }
      return filter;
    } catch (StoredFilterCorruptException e) {
      throw e;
    } catch (FileNotFoundException e) {
      throw removed(version, file); // object stores open lazily: the removal shows on the first read
    } catch (ChecksumException e) {
      throw corrupt(version, file, "the file system's checksum failed: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new IOException("location " + location + ", version " + version + ": reading the data file " + file
          + " failed: " + e.getMessage(), e);
    }
  }

  private FilterVersionNotFoundException removed(long version, Path file) {
    return new FilterVersionNotFoundException(location, version, "location " + location + ": version " + version
        + " was removed (its data file " + file + " is gone; retention removes old versions)");
  }

  private StoredFilterCorruptException corrupt(long version, Path file, String problem, Throwable cause) {
    StoredFilterCorruptException e = new StoredFilterCorruptException(location, version, file.toString(), problem);
    if (cause != null) {
      e.initCause(cause);
    }
    return e;
  }

  private void deleteQuietly(Path file) {
    try {
      fs.delete(file, false);
    } catch (IOException e) {
      // a leftover, for cleanLeftovers
    }
  }

  private static void requireVersionNumber(long version) {
    if (version < 1) {
      throw new IllegalArgumentException("version must be 1 or more (versions are numbered from 1), got " + version);
    }
  }

  @Override
  public String toString() {
    return "FilterStore(" + location + ")";
  }
}
