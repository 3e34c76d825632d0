// aclnnFlip in the style of CANN's sample: a [2, 3, 4] float tensor reversed along dims (0, -1) (docs/ops.md §19).
// It checks every element against the formula, then the first phase's
// rules: a dim out of range, a dim named twice, a null dims.
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_flip.h"
#include "common.h"

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> selfShape = {2, 3, 4}, outShape = {2, 3, 4};
    void *selfDeviceAddr = nullptr, *outDeviceAddr = nullptr;
    aclTensor *self = nullptr, *out = nullptr;
    std::vector<float> selfHostData(24);
    for (int i = 0; i < 24; i++) {
        selfHostData[i] = static_cast<float>(i);
    }
    std::vector<float> outHostData(24, -1);
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<int64_t> dimsData = {0, -1};
    aclIntArray* dims = aclCreateIntArray(dimsData.data(), dimsData.size());

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnFlipGetWorkspaceSize(self, dims, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnFlipGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnFlip(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnFlip failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    std::vector<float> resultData(outHostData.size(), 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    // out[a][b][c] = self[1 - a][b][3 - c].
    for (int a = 0; a < 2; a++) {
        for (int b = 0; b < 3; b++) {
            for (int c = 0; c < 4; c++) {
                float got = resultData[(a * 3 + b) * 4 + c], want = selfHostData[((1 - a) * 3 + b) * 4 + (3 - c)];
                CHECK_RET(got == want, LOG_PRINT("out[%d][%d][%d] is %f, should be %f\n", a, b, c, got, want);
                          return 1);
            }
        }
    }

    // The first phase's rules (no executor written).
    aclOpExecutor* unused = nullptr;
    std::vector<int64_t> outOfRange = {3}, twice = {1, -2};
    aclIntArray* oorArr = aclCreateIntArray(outOfRange.data(), outOfRange.size());
    aclIntArray* twiceArr = aclCreateIntArray(twice.data(), twice.size());
    ret = aclnnFlipGetWorkspaceSize(self, oorArr, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("dim out of range: %d\n", ret); return 1);
    ret = aclnnFlipGetWorkspaceSize(self, twiceArr, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("dim twice: %d\n", ret); return 1);
    ret = aclnnFlipGetWorkspaceSize(self, nullptr, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null dims: %d\n", ret); return 1);

    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyIntArray(dims);
    aclDestroyIntArray(oorArr);
    aclDestroyIntArray(twiceArr);
    aclrtFree(selfDeviceAddr);
    aclrtFree(outDeviceAddr);
    if (workspaceAddr != nullptr) {
        aclrtFree(workspaceAddr);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("flip: ok\n");
    return 0;
}
