// The uma_template "hardware": out = max(a + b, 0) over n floats. Replace the loop with what
// drives your accelerator; keep the contract: returns 0, or nonzero for arguments it refuses
// (the executor then reports the call as failed).
#include <stdint.h>

int32_t uma_template_add_relu(const float* a, const float* b, float* out, int64_t n) {
  if (n < 0) return 1;
  for (int64_t i = 0; i < n; ++i) {
    float sum = a[i] + b[i];
    out[i] = sum > 0 ? sum : 0;
  }
  return 0;
}
