package dev.cuckoofilter.spark.util;

import java.util.List;
import scala.collection.JavaConverters;
import scala.collection.Seq;

/**
 * Conversions between Java lists and the Scala sequences of Catalyst's API, in one place so that the
 * Java code calling Spark reads as Java. Internal: not part of the project's API.
 */
public final class ScalaCollections {
  private ScalaCollections() {}

  /** An immutable Scala sequence with the list's elements, in order. */
  public static <T> Seq<T> seq(List<T> list) {
    return JavaConverters.asScalaBufferConverter(list).asScala().toList();
  }

  /** A Java view of a Scala sequence. */
  public static <T> List<T> list(Seq<T> seq) {
    return JavaConverters.seqAsJavaListConverter(seq).asJava();
  }
}
