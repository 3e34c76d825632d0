// aclnnSliceV2 in the style of CANN's sample: a [4, 6] float tensor cut
// along both axes at once (rows -3.. to the end by 2, columns 1..5 by 3;
// docs/ops.md §31), every element checked against the formula; then
// CANN's own [4, 2] example, and the first phase's rules: an axis out of
// range, a repeated axis, arrays of other lengths, a step of 0, a null
// array.
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_slice_v2.h"
#include "common.h"

static aclIntArray* Arr(std::vector<int64_t> v)
{
    return aclCreateIntArray(v.data(), v.size());
}

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    // Rows 1 and 3 (start -3 is row 1, end past the end, step 2); columns
    // 1 and 4 (start 1, end 5, step 3): out is [2, 2].
    std::vector<int64_t> selfShape = {4, 6}, outShape = {2, 2};
    void *selfDeviceAddr = nullptr, *outDeviceAddr = nullptr;
    aclTensor *self = nullptr, *out = nullptr;
    std::vector<float> selfHostData(24);
    for (int i = 0; i < 24; i++) {
        selfHostData[i] = 0.5f * i - 3;
    }
    std::vector<float> outHostData(4, -1);
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclIntArray* starts = Arr({-3, 1});
    aclIntArray* ends = Arr({INT64_MAX, 5});
    aclIntArray* axes = Arr({0, -1});
    aclIntArray* steps = Arr({2, 3});

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnSliceV2GetWorkspaceSize(self, starts, ends, axes, steps, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnSliceV2GetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnSliceV2(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnSliceV2 failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    std::vector<float> resultData(4, 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    // out[i][j] = self[1 + 2i][1 + 3j].
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 2; j++) {
            float got = resultData[i * 2 + j], want = selfHostData[(1 + 2 * i) * 6 + 1 + 3 * j];
            CHECK_RET(got == want, LOG_PRINT("out[%d][%d] is %f, should be %f\n", i, j, got, want); return 1);
        }
    }

    // CANN's example: [4, 2] = 0..7, axes {0, 1}, starts {1, 1}, ends {3, 2}: {3, 5}.
    std::vector<int64_t> exShape = {4, 2}, exOutShape = {2, 1};
    std::vector<float> exData = {0, 1, 2, 3, 4, 5, 6, 7}, exOutData = {0, 0};
    void *exAddr = nullptr, *exOutAddr = nullptr;
    aclTensor *ex = nullptr, *exOut = nullptr;
    ret = CreateAclTensor(exData, exShape, &exAddr, aclDataType::ACL_FLOAT, &ex);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(exOutData, exOutShape, &exOutAddr, aclDataType::ACL_FLOAT, &exOut);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclIntArray *exStarts = Arr({1, 1}), *exEnds = Arr({3, 2}), *exAxes = Arr({0, 1}), *exSteps = Arr({1, 1});
    uint64_t exWs = 0;
    aclOpExecutor* exExecutor;
    ret = aclnnSliceV2GetWorkspaceSize(ex, exStarts, exEnds, exAxes, exSteps, exOut, &exWs, &exExecutor);
    CHECK_RET(ret == ACL_SUCCESS && exWs == 0, LOG_PRINT("example first phase: %d\n", ret); return 1);
    ret = aclnnSliceV2(nullptr, 0, exExecutor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("example second phase: %d\n", ret); return 1);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = ReadBack(exOutAddr, exOutData);
    CHECK_RET(ret == ACL_SUCCESS && exOutData[0] == 3 && exOutData[1] == 5,
              LOG_PRINT("example gives %f, %f\n", exOutData[0], exOutData[1]); return 1);

    // The first phase's rules (no executor written).
    aclOpExecutor* unused = nullptr;
    aclIntArray *one = Arr({0}), *two = Arr({0, 0}), *bigAxis = Arr({2}), *twice = Arr({1, -1}), *zero = Arr({0});
    ret = aclnnSliceV2GetWorkspaceSize(self, one, one, bigAxis, steps, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("axis out of range: %d\n", ret); return 1);
    ret = aclnnSliceV2GetWorkspaceSize(self, two, two, twice, steps, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("repeated axis: %d\n", ret); return 1);
    ret = aclnnSliceV2GetWorkspaceSize(self, one, ends, axes, steps, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("starts too short: %d\n", ret); return 1);
    ret = aclnnSliceV2GetWorkspaceSize(self, starts, ends, axes, one, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("steps too short: %d\n", ret); return 1);
    ret = aclnnSliceV2GetWorkspaceSize(self, one, one, one, zero, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("zero step: %d\n", ret); return 1);
    ret = aclnnSliceV2GetWorkspaceSize(self, starts, ends, axes, steps, self, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("out of the wrong shape: %d\n", ret); return 1);
    ret = aclnnSliceV2GetWorkspaceSize(self, starts, ends, nullptr, steps, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null axes: %d\n", ret); return 1);

    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyTensor(ex);
    aclDestroyTensor(exOut);
    for (aclIntArray* a : {starts, ends, axes, steps, exStarts, exEnds, exAxes, exSteps, one, two, bigAxis, twice, zero}) {
        aclDestroyIntArray(a);
    }
    aclrtFree(selfDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtFree(exAddr);
    aclrtFree(exOutAddr);
    if (workspaceAddr != nullptr) {
        aclrtFree(workspaceAddr);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("slice_v2: ok\n");
    return 0;
}
