package dev.cuckoofilter.spark.expressions;

import static dev.cuckoofilter.spark.util.ScalaCollections.seq;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.FilterParameters;
import dev.cuckoofilter.spark.hash.KeyTypes;
import java.io.IOException;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback;
import org.apache.spark.sql.catalyst.expressions.codegen.ExprCode;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.collection.IndexedSeq;
import scala.collection.Seq;

/** {@code cuckoo_filter_info(filter)}: the parameters and statistics of a serialized filter, as a struct. */
public final class CuckooFilterInfo extends JavaExpression implements CodegenFallback {
  public static final String NAME = "cuckoo_filter_info";

  /** The result's fields. */
  public static final StructType SCHEMA = new StructType()
      .add("variant", DataTypes.StringType, false)
      .add("bucketSize", DataTypes.IntegerType, false)
      .add("fingerprintBits", DataTypes.IntegerType, false)
      .add("bucketCount", DataTypes.LongType, false)
      .add("items", DataTypes.LongType, false)
      .add("capacity", DataTypes.LongType, false)
      .add("loadFactor", DataTypes.DoubleType, false)
      .add("bitSize", DataTypes.LongType, false)
      .add("bitsPerItem", DataTypes.DoubleType, false)
      .add("expectedFpp", DataTypes.DoubleType, false)
      .add("targetFpp", DataTypes.DoubleType, false)
      .add("expectedItems", DataTypes.LongType, false)
      .add("failedInserts", DataTypes.LongType, false)
      .add("stashSize", DataTypes.IntegerType, false)
      .add("seed", DataTypes.LongType, false)
      .add("serializedBytes", DataTypes.LongType, false);

  private final Expression filter;

  public CuckooFilterInfo(Expression filter) {
    this.filter = filter;
  }

  @Override
  protected List<Object> arguments() {
    return List.of(filter);
  }

  @Override
  public Seq<Expression> children() {
    return seq(List.of(filter));
  }

  @Override
  public Expression withNewChildrenInternal(IndexedSeq<Expression> newChildren) {
    return new CuckooFilterInfo(newChildren.apply(0));
  }

  @Override
  public String prettyName() {
    return NAME;
  }

  @Override
  public boolean nullable() {
    return filter.nullable();
  }

  @Override
  public DataType dataType() {
    return SCHEMA;
  }

  @Override
  public TypeCheckResult checkInputDataTypes() {
    // An untyped NULL is a null filter: its info is null.
    if (!(filter.dataType() instanceof BinaryType) && !KeyTypes.untypedNull(filter.dataType())) {
      return new TypeCheckResult.TypeCheckFailure(NAME + ": argument 1 (filter) must be BINARY, not "
          + filter.dataType().simpleString());
    }
    return TypeCheckResult.TypeCheckSuccess$.MODULE$;
  }

  @Override
  public Object eval(InternalRow input) {
    byte[] bytes = (byte[]) filter.eval(input);
    if (bytes == null) {
      return null;
    }
    CuckooFilter f;
    try {
      f = CuckooFilter.fromByteArray(bytes);
    } catch (IOException e) {
      throw new IllegalArgumentException(NAME + ": argument 1 (filter) is not a valid cuckoo filter: "
          + e.getMessage(), e);
    }
    return row(f);
  }

  /** The struct for a filter. */
  public static InternalRow row(CuckooFilter f) {
    FilterParameters p = f.parameters();
    return new GenericInternalRow(new Object[] {
        UTF8String.fromString(p.variant()), p.bucketSize(), p.fingerprintBits(), p.bucketCount(), f.size(),
        f.capacity(), f.loadFactor(), f.bitSize(), f.bitsPerItem(), f.expectedFpp(), p.targetFpp(),
        p.expectedItems(), f.failedInserts(), f.stashSize(), p.seed(), f.serializedSize()});
  }

  @Override
  public ExprCode doGenCode(CodegenContext ctx, ExprCode ev) {
    return CodegenFallback.super.doGenCode(ctx, ev);
  }
}
