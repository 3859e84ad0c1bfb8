/**
 * The SQL functions {@code cuckoo_filter}, {@code cuckoo_might_contain} and {@code cuckoo_filter_info}
 * ({@link dev.cuckoofilter.spark.sql.CuckooSqlFunctions}), registered by {@code CuckooFilterExtensions},
 * with their argument checks.
 */
package dev.cuckoofilter.spark.sql;
