// aclnnPermute in the style of CANN's sample: a float32 4x2 tensor with
// dims (1, 0) (CANN's sample), a [2, 3, 5] int32 tensor with dims
// (2, 0, 1) read through a transposed view and written into a strided
// out (docs/ops.md §18), and the first phase's rules: a repeated dim, a
// dim out of range, a wrong out shape, a null dims.
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_permute.h"
#include "common.h"

static int RunPermute(const aclTensor* self, const aclIntArray* dims, aclTensor* out, aclrtStream stream)
{
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    auto ret = aclnnPermuteGetWorkspaceSize(self, dims, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnPermuteGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnPermute(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnPermute failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    if (workspaceAddr != nullptr) {
        aclrtFree(workspaceAddr);
    }
    return 0;
}

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    // 1. CANN's sample: [4, 2] with dims (1, 0) gives [2, 4].
    std::vector<int64_t> selfShape = {4, 2}, outShape = {2, 4}, dimsData = {1, 0};
    void *selfDeviceAddr = nullptr, *outDeviceAddr = nullptr;
    aclTensor *self = nullptr, *out = nullptr;
    std::vector<float> selfHostData = {1, 2, 3, 4, 5, 6, 7, 8};
    std::vector<float> outHostData(8, 0);
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclIntArray* dims = aclCreateIntArray(dimsData.data(), dimsData.size());
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = RunPermute(self, dims, out, stream);
    CHECK_RET(ret == 0, return ret);
    std::vector<float> resultData(8, 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    const float want1[8] = {1, 3, 5, 7, 2, 4, 6, 8};
    for (size_t i = 0; i < resultData.size(); i++) {
        LOG_PRINT("result[%zu] is: %f\n", i, resultData[i]);
        CHECK_RET(resultData[i] == want1[i], LOG_PRINT("result[%zu] should be %f\n", i, want1[i]); return 1);
    }

    // 2. A [2, 3, 5] self seen through a transpose of a [3, 2, 5] storage,
    //    dims (2, 0, 1) (the page's example, -1 spelt for 2), into a [5, 2, 3]
    //    out laid out dim-reversed (strides 1, 15, 5 over 30 elements).
    std::vector<int64_t> storeShape = {3, 2, 5};
    std::vector<int32_t> storeHost(30);
    for (int i = 0; i < 30; i++) {
        storeHost[i] = i;
    }
    void* storeDeviceAddr = nullptr;
    aclTensor* store = nullptr;
    ret = CreateAclTensor(storeHost, storeShape, &storeDeviceAddr, aclDataType::ACL_INT32, &store);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<int64_t> xShape = {2, 3, 5}, xStrides = {5, 10, 1}, storage = {30};
    aclTensor* x = aclCreateTensor(xShape.data(), xShape.size(), aclDataType::ACL_INT32, xStrides.data(), 0,
                                   aclFormat::ACL_FORMAT_ND, storage.data(), storage.size(), storeDeviceAddr);
    std::vector<int64_t> perm = {-1, 0, 1};
    aclIntArray* dims3 = aclCreateIntArray(perm.data(), perm.size());
    std::vector<int32_t> yHost(30, -1);
    void* yDeviceAddr = nullptr;
    aclTensor* yFlat = nullptr;
    ret = CreateAclTensor(yHost, std::vector<int64_t>{30}, &yDeviceAddr, aclDataType::ACL_INT32, &yFlat);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<int64_t> yShape = {5, 2, 3}, yStrides = {1, 15, 5};
    aclTensor* y = aclCreateTensor(yShape.data(), yShape.size(), aclDataType::ACL_INT32, yStrides.data(), 0,
                                   aclFormat::ACL_FORMAT_ND, storage.data(), storage.size(), yDeviceAddr);
    ret = RunPermute(x, dims3, y, stream);
    CHECK_RET(ret == 0, return ret);
    std::vector<int32_t> yResult(30, 0);
    ret = ReadBack(yDeviceAddr, yResult);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    // y[c][a][b] = x[a][b][c] = store[b][a][c] = b * 10 + a * 5 + c, stored at c + 15a + 5b.
    for (int a = 0; a < 2; a++) {
        for (int b = 0; b < 3; b++) {
            for (int c = 0; c < 5; c++) {
                int got = yResult[c + 15 * a + 5 * b], want = b * 10 + a * 5 + c;
                CHECK_RET(got == want, LOG_PRINT("y[%d][%d][%d] is %d, should be %d\n", c, a, b, got, want);
                          return 1);
            }
        }
    }

    // 3. The first phase's rules (no executor written).
    uint64_t workspaceSize = 0;
    aclOpExecutor* unused = nullptr;
    std::vector<int64_t> repeated = {1, -1}, outOfRange = {0, 2};
    aclIntArray* rep = aclCreateIntArray(repeated.data(), repeated.size());
    aclIntArray* far = aclCreateIntArray(outOfRange.data(), outOfRange.size());
    ret = aclnnPermuteGetWorkspaceSize(self, rep, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("repeated dim: %d\n", ret); return 1);
    ret = aclnnPermuteGetWorkspaceSize(self, far, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("dim out of range: %d\n", ret); return 1);
    ret = aclnnPermuteGetWorkspaceSize(self, dims, self, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("[4, 2] into [4, 2]: %d\n", ret); return 1);
    ret = aclnnPermuteGetWorkspaceSize(self, nullptr, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null dims: %d\n", ret); return 1);

    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyTensor(store);
    aclDestroyTensor(x);
    aclDestroyTensor(yFlat);
    aclDestroyTensor(y);
    aclDestroyIntArray(dims);
    aclDestroyIntArray(dims3);
    aclDestroyIntArray(rep);
    aclDestroyIntArray(far);
    aclrtFree(selfDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtFree(storeDeviceAddr);
    aclrtFree(yDeviceAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("permute: ok\n");
    return 0;
}
