/**
 * Cuckoo filters in Spark 3.5. The entry points: {@link dev.cuckoofilter.spark.CuckooFilters}, the
 * DataFrame API (build a filter over key columns, broadcast it, prune the big side of a join, in one
 * call or in parts); {@link dev.cuckoofilter.spark.SparkCuckooFilter}, a built filter with its key
 * types; {@link dev.cuckoofilter.spark.CuckooFilterExtensions}, for {@code spark.sql.extensions}
 * (the SQL functions and the automatic runtime filter rule); {@link
 * dev.cuckoofilter.spark.CuckooKryoRegistrator}, for {@code spark.kryo.registrator}.
 *
 * <p>The parts, one package each: {@code hash} (Spark values under the hash contract), {@code
 * aggregate} (the distributed build), {@code expressions} (the probe and the other Catalyst
 * expressions), {@code sql} (the SQL functions), {@code prune} (which joins may be pruned, and how),
 * {@code optimizer} (the runtime filter rule and stored filters as join indexes), {@code execution}
 * (the physical operators of the map-side build), {@code store} (filter files on any Hadoop file
 * system), {@code update} (incremental updates). docs/SPARK.md describes them.
 */
package dev.cuckoofilter.spark;
