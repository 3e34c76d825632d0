// aclnnRoll in the style of CANN's sample: a [2, 3, 4] float tensor rolled by (1, -1) along dims (1, 2) (docs/ops.md §20).
// It checks every element against the formula, then the first phase's
// rules: shifts and dims of different lengths, a dim out of range, a null shifts.
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_roll.h"
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
    std::vector<int64_t> shiftsData = {1, -1}, dimsData = {1, 2};
    aclIntArray* shifts = aclCreateIntArray(shiftsData.data(), shiftsData.size());
    aclIntArray* dims = aclCreateIntArray(dimsData.data(), dimsData.size());

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnRollGetWorkspaceSize(self, shifts, dims, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnRollGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnRoll(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnRoll failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    std::vector<float> resultData(outHostData.size(), 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    // out[a][b][c] = self[a][(b - 1) mod 3][(c + 1) mod 4].
    for (int a = 0; a < 2; a++) {
        for (int b = 0; b < 3; b++) {
            for (int c = 0; c < 4; c++) {
                float got = resultData[(a * 3 + b) * 4 + c], want = selfHostData[(a * 3 + (b + 2) % 3) * 4 + (c + 1) % 4];
                CHECK_RET(got == want, LOG_PRINT("out[%d][%d][%d] is %f, should be %f\n", a, b, c, got, want);
                          return 1);
            }
        }
    }

    // The first phase's rules (no executor written).
    aclOpExecutor* unused = nullptr;
    std::vector<int64_t> one = {1}, outOfRange = {1, 3};
    aclIntArray* oneArr = aclCreateIntArray(one.data(), one.size());
    aclIntArray* oorArr = aclCreateIntArray(outOfRange.data(), outOfRange.size());
    ret = aclnnRollGetWorkspaceSize(self, oneArr, dims, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("lengths differ: %d\n", ret); return 1);
    ret = aclnnRollGetWorkspaceSize(self, shifts, oorArr, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("dim out of range: %d\n", ret); return 1);
    ret = aclnnRollGetWorkspaceSize(self, nullptr, dims, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null shifts: %d\n", ret); return 1);

    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyIntArray(shifts);
    aclDestroyIntArray(dims);
    aclDestroyIntArray(oneArr);
    aclDestroyIntArray(oorArr);
    aclrtFree(selfDeviceAddr);
    aclrtFree(outDeviceAddr);
    if (workspaceAddr != nullptr) {
        aclrtFree(workspaceAddr);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("roll: ok\n");
    return 0;
}
