package dev.cuckoofilter.spark.store;

import com.amazonaws.SdkBaseException;
import com.amazonaws.services.s3.AmazonS3;
import com.amazonaws.services.s3.model.AmazonS3Exception;
import com.amazonaws.services.s3.model.ObjectMetadata;
import com.amazonaws.services.s3.model.PutObjectRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.AWSCredentialProviderList;
import org.apache.hadoop.fs.s3a.Constants;
import org.apache.hadoop.fs.s3a.DefaultS3ClientFactory;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.fs.s3a.S3AUtils;
import org.apache.hadoop.fs.s3a.S3ClientFactory;
import org.apache.hadoop.fs.s3a.api.RequestFactory;
import org.apache.hadoop.util.ReflectionUtils;

/**
 * S3: a PUT with {@code If-None-Match: *}. S3 stores the object only if no object of that key exists and
 * answers 412 Precondition Failed otherwise; the object becomes visible whole, when the PUT completes.
 * S3A's own {@code create(overwrite=false)} is a HEAD followed by a PUT, which two writers can pass together.
 *
 * <p>The request is made by S3A's request factory (so it carries the encryption settings and ACL of
 * S3A's own uploads) and sent by an AWS SDK client built like S3A builds its own: the per-bucket options
 * ({@code fs.s3a.bucket.<bucket>.*}), S3A's credential provider chain, and the client factory named by
 * {@code fs.s3a.s3.client.factory.impl} (endpoint, region, path-style access, SSL, proxy, retries, signer).
 * S3AFileSystem's own client is only reachable through a hook meant for tests, so it is not used. One
 * client is made per commit and shut down after it: commits are rare, and a store has no close().
 * S3A delegation tokens are not consulted: with them, credentials must also be in the configuration.
 *
 * <p>This is the only class that uses S3A or the AWS SDK; it is loaded for s3a locations only.
 */
final class S3ConditionalPut extends ExclusiveCreate {
  private static final int PRECONDITION_FAILED = 412;
  /**
   * S3 answers 409 when another conditional write of the same key is in flight (one of them will win); it
   * decides nothing by itself, so the PUT is repeated until S3 answers 412 or 200.
   */
  private static final int CONDITIONAL_REQUEST_CONFLICT = 409;
  /** Attempts of the PUT while S3 answers 409, and the first pause between them (doubled each time). */
  private static final int CONFLICT_ATTEMPTS = 6;
  private static final long CONFLICT_BACKOFF_MS = 100;

  private final S3AFileSystem fs;
  private final Configuration bucketConf;

  private S3ConditionalPut(S3AFileSystem fs, Configuration bucketConf) {
    this.fs = fs;
    this.bucketConf = bucketConf;
  }

  static ExclusiveCreate create(FileSystem fs, Configuration conf) {
    S3AFileSystem s3a = (S3AFileSystem) fs;
    return new S3ConditionalPut(s3a, S3AUtils.propagateBucketOptions(conf, s3a.getBucket()));
  }

  @Override
  boolean create(Path file, byte[] content) throws IOException {
    // S3A's request factory applies what S3A applies to its own uploads: server-side encryption
    // (SSE-S3, SSE-KMS, SSE-C keys) and the canned ACL.
    RequestFactory requests = fs.getRequestFactory();
    ObjectMetadata meta = requests.newObjectMetadata(content.length);
    meta.setContentType("application/json");
    PutObjectRequest put = requests.newPutObjectRequest(fs.pathToKey(file), meta, new ByteArrayInputStream(content));
    put.putCustomRequestHeader("If-None-Match", "*");
    try (AWSCredentialProviderList credentials = S3AUtils.createAWSCredentialProviderSet(fs.getUri(), bucketConf)) {
      AmazonS3 client = newClient(credentials);
      try {
        for (int attempt = 1; ; attempt++) {
          try {
            put.setInputStream(new ByteArrayInputStream(content));
            client.putObject(put);
            return true;
          } catch (AmazonS3Exception e) {
            if (e.getStatusCode() == PRECONDITION_FAILED) {
              return false;
            }
            if (e.getStatusCode() != CONDITIONAL_REQUEST_CONFLICT) {
              throw S3AUtils.translateException("conditional PUT (If-None-Match: *)", file.toString(), e);
            }
            // 409: another conditional PUT of this key is in flight, possibly this writer's own first attempt
            // that the SDK retried. Its outcome decides: it may still land or fail, so the name is neither
            // taken nor free yet. Ask again once it has completed (S3's advice for 409): 412 then tells that
            // the name was taken (by whom, the caller reads), success that the other attempt failed.
            if (attempt == CONFLICT_ATTEMPTS) {
              throw new IOException("conditional PUT (If-None-Match: *) of " + file + ": S3 answered 409 "
                  + "ConditionalRequestConflict " + attempt + " times (another write of this key stayed in flight), "
                  + "so whether the key is taken is unknown: " + e.getMessage(), e);
            }
            sleep(CONFLICT_BACKOFF_MS << (attempt - 1), file);
          }
        }
      } catch (SdkBaseException e) {
        throw S3AUtils.translateException("conditional PUT (If-None-Match: *)", file.toString(), e);
      } finally {
        client.shutdown();
      }
    }
  }

  private static void sleep(long millis, Path file) throws IOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while waiting to retry the conditional PUT of " + file);
    }
  }

  private AmazonS3 newClient(AWSCredentialProviderList credentials) throws IOException {
    Class<? extends S3ClientFactory> factoryClass = bucketConf.getClass(Constants.S3_CLIENT_FACTORY_IMPL,
        DefaultS3ClientFactory.class, S3ClientFactory.class);
    S3ClientFactory factory = ReflectionUtils.newInstance(factoryClass, bucketConf);
    S3ClientFactory.S3ClientCreationParameters parameters = new S3ClientFactory.S3ClientCreationParameters()
        .withCredentialSet(credentials)
        .withEndpoint(bucketConf.getTrimmed(Constants.ENDPOINT, ""))
        .withPathStyleAccess(bucketConf.getBoolean(Constants.PATH_STYLE_ACCESS, false))
        .withUserAgentSuffix("spark-cuckoo-filter-store");
    return factory.createS3Client(fs.getUri(), parameters);
  }

  @Override
  String protocol() {
    return "S3: PUT with If-None-Match: *";
  }
}
