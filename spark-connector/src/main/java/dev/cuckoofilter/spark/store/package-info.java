/**
 * The filter store: versioned cuckoo filters kept as files at any Hadoop file system location (HDFS,
 * S3 through S3A, the local file system, ...), published atomically, read with verification, shared
 * by concurrent writers through optimistic concurrency, and loaded by Spark executors themselves.
 * Start with {@link dev.cuckoofilter.spark.store.FilterStore}; the layout, the commit protocol and the
 * guarantees are specified in docs/STORE.md.
 *
 * <p>Plain reads and writes need only a Hadoop {@code Configuration}; S3A and the AWS SDK are needed
 * for s3a locations only. Without Spark on the classpath at all, {@link
 * dev.cuckoofilter.spark.store.FilterStore#readVersion readVersion}, {@code readLatestVersion},
 * {@code publish(CuckooFilter, VersionMetadata)}, {@code versions}, {@code latest}, {@code retain} and
 * {@code cleanLeftovers} work (with Jackson for the commit records): they describe key columns as Spark
 * schema JSON ({@link dev.cuckoofilter.spark.store.VersionMetadata}) instead of Spark types.
 */
package dev.cuckoofilter.spark.store;
