package dev.cuckoofilter.spark.expressions;

import static dev.cuckoofilter.spark.util.ScalaCollections.seq;

import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext;
import org.apache.spark.sql.catalyst.expressions.codegen.ExprCode;
import org.apache.spark.sql.types.BinaryType$;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import scala.collection.IndexedSeq;
import scala.collection.Seq;

/**
 * A filter given to a probe by reference (a broadcast made by the DataFrame API) rather than as bytes.
 * Only {@link CuckooMightContain} consumes it; it shows in plans as {@code cuckoo_filter[...]}.
 */
public final class FilterReference extends JavaExpression {
  private final FilterHandle handle;
  /** The names and types of the filter's key columns, or null if unknown. */
  private final List<StructField> keyFields;

  public FilterReference(FilterHandle handle) {
    this(handle, null);
  }

  /**
   * A reference to a filter of keys of the given names and types: a probe with keys that hash otherwise
   * fails at analysis.
   */
  public FilterReference(FilterHandle handle, List<StructField> keyFields) {
    this.handle = handle;
    this.keyFields = keyFields == null ? null : List.copyOf(keyFields);
  }

  public FilterHandle handle() {
    return handle;
  }

  /** The filter's key columns, or null if unknown. */
  public List<StructField> keyFields() {
    return keyFields;
  }

  @Override
  protected List<Object> arguments() {
    return keyFields == null ? List.of(handle) : List.of(handle, keyFields);
  }

  @Override
  public Seq<Expression> children() {
    return seq(List.of());
  }

  @Override
  public Expression withNewChildrenInternal(IndexedSeq<Expression> newChildren) {
    return this;
  }

  @Override
  public boolean nullable() {
    return false;
  }

  @Override
  public DataType dataType() {
    return BinaryType$.MODULE$;
  }

  @Override
  public Object eval(InternalRow input) {
    throw new UnsupportedOperationException("a cuckoo filter reference is only read by cuckoo_might_contain");
  }

  @Override
  public ExprCode doGenCode(CodegenContext ctx, ExprCode ev) {
    throw new UnsupportedOperationException("a cuckoo filter reference is only read by cuckoo_might_contain");
  }

  @Override
  public String toString() {
    return "cuckoo_filter[" + handle.describe() + "]";
  }

  @Override
  public String sql() {
    return toString();
  }
}
