/** Internal helpers for Java code that calls Spark's Scala API. */
package dev.cuckoofilter.spark.util;
