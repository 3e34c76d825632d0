// aclnnRepeat in the style of CANN's sample, through the header's second
// path (aclnnop/level2/aclnn_repeat.h, which CANN also ships): a [3, 2]
// float tensor tiled by (2, 4, 2) into [2, 12, 4] (CANN's sample), and the
// first phase's rules: too few repeats, a negative repeat, a wrong out
// shape, a null repeats (docs/ops.md §22).
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/level2/aclnn_repeat.h"
#include "common.h"

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> selfShape = {3, 2}, outShape = {2, 12, 4}, repeatsArray = {2, 4, 2};
    void *selfDeviceAddr = nullptr, *outDeviceAddr = nullptr;
    aclTensor *self = nullptr, *out = nullptr;
    std::vector<float> selfHostData = {1, 2, 3, 4, 5, 6};
    std::vector<float> outHostData(2 * 12 * 4, 0);
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclIntArray* repeats = aclCreateIntArray(repeatsArray.data(), repeatsArray.size());

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnRepeatGetWorkspaceSize(self, repeats, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnRepeatGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnRepeat(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnRepeat failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    std::vector<float> resultData(outHostData.size(), 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    // out[a][b][c] = self[b % 3][c % 2].
    for (int a = 0; a < 2; a++) {
        for (int b = 0; b < 12; b++) {
            for (int c = 0; c < 4; c++) {
                float got = resultData[(a * 12 + b) * 4 + c], want = selfHostData[(b % 3) * 2 + c % 2];
                CHECK_RET(got == want, LOG_PRINT("out[%d][%d][%d] is %f, should be %f\n", a, b, c, got, want);
                          return 1);
            }
        }
    }

    // The first phase's rules (no executor written).
    aclOpExecutor* unused = nullptr;
    std::vector<int64_t> few = {2}, negative = {1, -1, 2};
    aclIntArray* fewArr = aclCreateIntArray(few.data(), few.size());
    aclIntArray* negArr = aclCreateIntArray(negative.data(), negative.size());
    ret = aclnnRepeatGetWorkspaceSize(self, fewArr, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("too few repeats: %d\n", ret); return 1);
    ret = aclnnRepeatGetWorkspaceSize(self, negArr, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("negative repeat: %d\n", ret); return 1);
    ret = aclnnRepeatGetWorkspaceSize(self, repeats, self, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("wrong out shape: %d\n", ret); return 1);
    ret = aclnnRepeatGetWorkspaceSize(self, nullptr, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null repeats: %d\n", ret); return 1);

    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyIntArray(repeats);
    aclDestroyIntArray(fewArr);
    aclDestroyIntArray(negArr);
    aclrtFree(selfDeviceAddr);
    aclrtFree(outDeviceAddr);
    if (workspaceAddr != nullptr) {
        aclrtFree(workspaceAddr);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("repeat: ok\n");
    return 0;
}
