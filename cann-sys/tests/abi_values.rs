//! Every enum value and status code of `cann-sys` against the tables of
//! shared/abi/abi-facts.md (sections 2.1-2.4 and 3.1, 3.2, 3.4), from which
//! this file's expectations were transcribed.
#![allow(clippy::unreadable_literal)]
use cann_sys::*;

#[test]
fn acl_data_type_values() {
    let expected: &[(aclDataType, i64)] = &[
        (aclDataType::ACL_DT_UNDEFINED, -1),
        (aclDataType::ACL_FLOAT, 0),
        (aclDataType::ACL_FLOAT16, 1),
        (aclDataType::ACL_INT8, 2),
        (aclDataType::ACL_INT32, 3),
        (aclDataType::ACL_UINT8, 4),
        (aclDataType::ACL_INT16, 6),
        (aclDataType::ACL_UINT16, 7),
        (aclDataType::ACL_UINT32, 8),
        (aclDataType::ACL_INT64, 9),
        (aclDataType::ACL_UINT64, 10),
        (aclDataType::ACL_DOUBLE, 11),
        (aclDataType::ACL_BOOL, 12),
        (aclDataType::ACL_STRING, 13),
        (aclDataType::ACL_COMPLEX64, 16),
        (aclDataType::ACL_COMPLEX128, 17),
        (aclDataType::ACL_BF16, 27),
        (aclDataType::ACL_INT4, 29),
        (aclDataType::ACL_UINT1, 30),
        (aclDataType::ACL_COMPLEX32, 33),
        (aclDataType::ACL_HIFLOAT8, 34),
        (aclDataType::ACL_FLOAT8_E5M2, 35),
        (aclDataType::ACL_FLOAT8_E4M3FN, 36),
        (aclDataType::ACL_FLOAT8_E8M0, 37),
        (aclDataType::ACL_FLOAT6_E3M2, 38),
        (aclDataType::ACL_FLOAT6_E2M3, 39),
        (aclDataType::ACL_FLOAT4_E2M1, 40),
        (aclDataType::ACL_FLOAT4_E1M2, 41),
        (aclDataType::ACL_HIFLOAT4, 42),
        (aclDataType::ACL_HIFLOAT4_SCALE, 43),
    ];
    assert_eq!(expected.len(), 30);
    for (value, want) in expected {
        assert_eq!(value.0 as i64, *want, "{value:?}");
    }
}

#[test]
fn acl_format_values() {
    let expected: &[(aclFormat, i64)] = &[
        (aclFormat::ACL_FORMAT_UNDEFINED, -1),
        (aclFormat::ACL_FORMAT_NCHW, 0),
        (aclFormat::ACL_FORMAT_NHWC, 1),
        (aclFormat::ACL_FORMAT_ND, 2),
        (aclFormat::ACL_FORMAT_NC1HWC0, 3),
        (aclFormat::ACL_FORMAT_FRACTAL_Z, 4),
        (aclFormat::ACL_FORMAT_NC1HWC0_C04, 12),
        (aclFormat::ACL_FORMAT_HWCN, 16),
        (aclFormat::ACL_FORMAT_NDHWC, 27),
        (aclFormat::ACL_FORMAT_FRACTAL_NZ, 29),
        (aclFormat::ACL_FORMAT_NCDHW, 30),
        (aclFormat::ACL_FORMAT_NDC1HWC0, 32),
        (aclFormat::ACL_FRACTAL_Z_3D, 33),
        (aclFormat::ACL_FORMAT_NC, 35),
        (aclFormat::ACL_FORMAT_NCL, 47),
        (aclFormat::ACL_FORMAT_FRACTAL_NZ_C0_16, 50),
        (aclFormat::ACL_FORMAT_FRACTAL_NZ_C0_32, 51),
        (aclFormat::ACL_FORMAT_FRACTAL_NZ_C0_2, 52),
        (aclFormat::ACL_FORMAT_FRACTAL_NZ_C0_4, 53),
        (aclFormat::ACL_FORMAT_FRACTAL_NZ_C0_8, 54),
    ];
    assert_eq!(expected.len(), 20);
    for (value, want) in expected {
        assert_eq!(value.0 as i64, *want, "{value:?}");
    }
}

#[test]
fn aclrt_mem_malloc_policy_values() {
    let expected: &[(aclrtMemMallocPolicy, i64)] = &[
        (aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST, 0),
        (aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_ONLY, 1),
        (aclrtMemMallocPolicy::ACL_MEM_MALLOC_NORMAL_ONLY, 2),
        (aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST_P2P, 3),
        (aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_ONLY_P2P, 4),
        (aclrtMemMallocPolicy::ACL_MEM_MALLOC_NORMAL_ONLY_P2P, 5),
        (aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE1G_ONLY, 6),
        (aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE1G_ONLY_P2P, 7),
        (aclrtMemMallocPolicy::ACL_MEM_TYPE_LOW_BAND_WIDTH, 256),
        (aclrtMemMallocPolicy::ACL_MEM_TYPE_HIGH_BAND_WIDTH, 4096),
        (
            aclrtMemMallocPolicy::ACL_MEM_ACCESS_USER_SPACE_READONLY,
            1048576,
        ),
    ];
    assert_eq!(expected.len(), 11);
    for (value, want) in expected {
        assert_eq!(value.0 as i64, *want, "{value:?}");
    }
}

#[test]
fn aclrt_memcpy_kind_values() {
    let expected: &[(aclrtMemcpyKind, i64)] = &[
        (aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_HOST, 0),
        (aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE, 1),
        (aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_HOST, 2),
        (aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_DEVICE, 3),
        (aclrtMemcpyKind::ACL_MEMCPY_DEFAULT, 4),
        (aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, 5),
        (aclrtMemcpyKind::ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, 6),
        (aclrtMemcpyKind::ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, 7),
    ];
    assert_eq!(expected.len(), 8);
    for (value, want) in expected {
        assert_eq!(value.0 as i64, *want, "{value:?}");
    }
}

#[test]
fn runtime_enum_values() {
    assert_eq!(aclrtMemAttr::ACL_DDR_MEM.0 as i64, 0);
    assert_eq!(aclrtMemAttr::ACL_HBM_MEM.0 as i64, 1);
    assert_eq!(aclrtMemAttr::ACL_DDR_MEM_HUGE.0 as i64, 2);
    assert_eq!(aclrtMemAttr::ACL_DDR_MEM_NORMAL.0 as i64, 3);
    assert_eq!(aclrtMemAttr::ACL_HBM_MEM_HUGE.0 as i64, 4);
    assert_eq!(aclrtMemAttr::ACL_HBM_MEM_NORMAL.0 as i64, 5);
    assert_eq!(aclrtMemAttr::ACL_DDR_MEM_P2P_HUGE.0 as i64, 6);
    assert_eq!(aclrtMemAttr::ACL_DDR_MEM_P2P_NORMAL.0 as i64, 7);
    assert_eq!(aclrtMemAttr::ACL_HBM_MEM_P2P_HUGE.0 as i64, 8);
    assert_eq!(aclrtMemAttr::ACL_HBM_MEM_P2P_NORMAL.0 as i64, 9);
    assert_eq!(aclrtMemAttr::ACL_HBM_MEM_HUGE1G.0 as i64, 10);
    assert_eq!(aclrtMemAttr::ACL_HBM_MEM_P2P_HUGE1G.0 as i64, 11);
    assert_eq!(aclrtMemAttr::ACL_MEM_NORMAL.0 as i64, 12);
    assert_eq!(aclrtMemAttr::ACL_MEM_HUGE.0 as i64, 13);
    assert_eq!(aclrtMemAttr::ACL_MEM_HUGE1G.0 as i64, 14);
    assert_eq!(aclrtMemAttr::ACL_MEM_P2P_NORMAL.0 as i64, 15);
    assert_eq!(aclrtMemAttr::ACL_MEM_P2P_HUGE.0 as i64, 16);
    assert_eq!(aclrtMemAttr::ACL_MEM_P2P_HUGE1G.0 as i64, 17);
    assert_eq!(
        aclrtEventRecordedStatus::ACL_EVENT_RECORDED_STATUS_NOT_READY.0 as i64,
        0
    );
    assert_eq!(
        aclrtEventRecordedStatus::ACL_EVENT_RECORDED_STATUS_COMPLETE.0 as i64,
        1
    );
    assert_eq!(aclrtStreamStatus::ACL_STREAM_STATUS_COMPLETE.0 as i64, 0);
    assert_eq!(aclrtStreamStatus::ACL_STREAM_STATUS_NOT_READY.0 as i64, 1);
    assert_eq!(
        aclrtStreamStatus::ACL_STREAM_STATUS_RESERVED.0 as i64,
        65535
    );
}

#[test]
fn acl_error_codes() {
    let expected: &[(i64, i64)] = &[
        (ACL_ERROR_NONE as i64, 0),
        (ACL_SUCCESS as i64, 0),
        (ACL_ERROR_INVALID_PARAM as i64, 100000),
        (ACL_ERROR_UNINITIALIZE as i64, 100001),
        (ACL_ERROR_REPEAT_INITIALIZE as i64, 100002),
        (ACL_ERROR_INVALID_FILE as i64, 100003),
        (ACL_ERROR_WRITE_FILE as i64, 100004),
        (ACL_ERROR_INVALID_FILE_SIZE as i64, 100005),
        (ACL_ERROR_PARSE_FILE as i64, 100006),
        (ACL_ERROR_FILE_MISSING_ATTR as i64, 100007),
        (ACL_ERROR_FILE_ATTR_INVALID as i64, 100008),
        (ACL_ERROR_INVALID_DUMP_CONFIG as i64, 100009),
        (ACL_ERROR_INVALID_PROFILING_CONFIG as i64, 100010),
        (ACL_ERROR_INVALID_MODEL_ID as i64, 100011),
        (ACL_ERROR_DESERIALIZE_MODEL as i64, 100012),
        (ACL_ERROR_PARSE_MODEL as i64, 100013),
        (ACL_ERROR_READ_MODEL_FAILURE as i64, 100014),
        (ACL_ERROR_MODEL_SIZE_INVALID as i64, 100015),
        (ACL_ERROR_MODEL_MISSING_ATTR as i64, 100016),
        (ACL_ERROR_MODEL_INPUT_NOT_MATCH as i64, 100017),
        (ACL_ERROR_MODEL_OUTPUT_NOT_MATCH as i64, 100018),
        (ACL_ERROR_MODEL_NOT_DYNAMIC as i64, 100019),
        (ACL_ERROR_OP_TYPE_NOT_MATCH as i64, 100020),
        (ACL_ERROR_OP_INPUT_NOT_MATCH as i64, 100021),
        (ACL_ERROR_OP_OUTPUT_NOT_MATCH as i64, 100022),
        (ACL_ERROR_OP_ATTR_NOT_MATCH as i64, 100023),
        (ACL_ERROR_OP_NOT_FOUND as i64, 100024),
        (ACL_ERROR_OP_LOAD_FAILED as i64, 100025),
        (ACL_ERROR_UNSUPPORTED_DATA_TYPE as i64, 100026),
        (ACL_ERROR_FORMAT_NOT_MATCH as i64, 100027),
        (ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED as i64, 100028),
        (ACL_ERROR_KERNEL_NOT_FOUND as i64, 100029),
        (ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED as i64, 100030),
        (ACL_ERROR_KERNEL_ALREADY_REGISTERED as i64, 100031),
        (ACL_ERROR_INVALID_QUEUE_ID as i64, 100032),
        (ACL_ERROR_REPEAT_SUBSCRIBE as i64, 100033),
        (ACL_ERROR_STREAM_NOT_SUBSCRIBE as i64, 100034),
        (ACL_ERROR_THREAD_NOT_SUBSCRIBE as i64, 100035),
        (ACL_ERROR_WAIT_CALLBACK_TIMEOUT as i64, 100036),
        (ACL_ERROR_REPEAT_FINALIZE as i64, 100037),
        (ACL_ERROR_NOT_STATIC_AIPP as i64, 100038),
        (ACL_ERROR_COMPILING_STUB_MODE as i64, 100039),
        (ACL_ERROR_GROUP_NOT_SET as i64, 100040),
        (ACL_ERROR_GROUP_NOT_CREATE as i64, 100041),
        (ACL_ERROR_PROF_ALREADY_RUN as i64, 100042),
        (ACL_ERROR_PROF_NOT_RUN as i64, 100043),
        (ACL_ERROR_DUMP_ALREADY_RUN as i64, 100044),
        (ACL_ERROR_DUMP_NOT_RUN as i64, 100045),
        (ACL_ERROR_PROF_REPEAT_SUBSCRIBE as i64, 148046),
        (ACL_ERROR_PROF_API_CONFLICT as i64, 148047),
        (ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG as i64, 148048),
        (ACL_ERROR_INVALID_OPP_PATH as i64, 148049),
        (ACL_ERROR_OP_UNSUPPORTED_DYNAMIC as i64, 148050),
        (ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED as i64, 148051),
        (ACL_ERROR_UNSUPPORTED_JPEG as i64, 148052),
        (ACL_ERROR_INVALID_BUNDLE_MODEL_ID as i64, 148053),
        (ACL_ERROR_BAD_ALLOC as i64, 200000),
        (ACL_ERROR_API_NOT_SUPPORT as i64, 200001),
        (ACL_ERROR_INVALID_DEVICE as i64, 200002),
        (ACL_ERROR_MEMORY_ADDRESS_UNALIGNED as i64, 200003),
        (ACL_ERROR_RESOURCE_NOT_MATCH as i64, 200004),
        (ACL_ERROR_INVALID_RESOURCE_HANDLE as i64, 200005),
        (ACL_ERROR_FEATURE_UNSUPPORTED as i64, 200006),
        (ACL_ERROR_PROF_MODULES_UNSUPPORTED as i64, 200007),
        (ACL_ERROR_STORAGE_OVER_LIMIT as i64, 300000),
        (ACL_ERROR_INTERNAL_ERROR as i64, 500000),
        (ACL_ERROR_FAILURE as i64, 500001),
        (ACL_ERROR_GE_FAILURE as i64, 500002),
        (ACL_ERROR_RT_FAILURE as i64, 500003),
        (ACL_ERROR_DRV_FAILURE as i64, 500004),
        (ACL_ERROR_PROFILING_FAILURE as i64, 500005),
        // acl_base_rt.h: `static const int ACL_ERROR_INVALID_EXCEPTION_INFO = -1`.
        (ACL_ERROR_INVALID_EXCEPTION_INFO as i64, -1),
    ];
    assert_eq!(expected.len(), 72);
    for (i, (value, want)) in expected.iter().enumerate() {
        assert_eq!(value, want, "entry {i}");
    }
}

#[test]
fn runtime_error_codes() {
    let expected: &[(i64, i64)] = &[
        (ACL_RT_SUCCESS as i64, 0),
        (ACL_ERROR_RT_PARAM_INVALID as i64, 107000),
        (ACL_ERROR_RT_INVALID_DEVICEID as i64, 107001),
        (ACL_ERROR_RT_CONTEXT_NULL as i64, 107002),
        (ACL_ERROR_RT_STREAM_CONTEXT as i64, 107003),
        (ACL_ERROR_RT_MODEL_CONTEXT as i64, 107004),
        (ACL_ERROR_RT_STREAM_MODEL as i64, 107005),
        (ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID as i64, 107006),
        (ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL as i64, 107007),
        (ACL_ERROR_RT_ADDR_UNALIGNED as i64, 107008),
        (ACL_ERROR_RT_FILE_OPEN as i64, 107009),
        (ACL_ERROR_RT_FILE_WRITE as i64, 107010),
        (ACL_ERROR_RT_STREAM_SUBSCRIBE as i64, 107011),
        (ACL_ERROR_RT_THREAD_SUBSCRIBE as i64, 107012),
        (ACL_ERROR_RT_GROUP_NOT_SET as i64, 107013),
        (ACL_ERROR_RT_GROUP_NOT_CREATE as i64, 107014),
        (ACL_ERROR_RT_STREAM_NO_CB_REG as i64, 107015),
        (ACL_ERROR_RT_INVALID_MEMORY_TYPE as i64, 107016),
        (ACL_ERROR_RT_INVALID_HANDLE as i64, 107017),
        (ACL_ERROR_RT_INVALID_MALLOC_TYPE as i64, 107018),
        (ACL_ERROR_RT_WAIT_TIMEOUT as i64, 107019),
        (ACL_ERROR_RT_TASK_TIMEOUT as i64, 107020),
        (ACL_ERROR_RT_SYSPARAMOPT_NOT_SET as i64, 107021),
        (ACL_ERROR_RT_DEVICE_TASK_ABORT as i64, 107022),
        (ACL_ERROR_RT_STREAM_ABORT as i64, 107023),
        (ACL_ERROR_RT_CAPTURE_DEPENDENCY as i64, 107024),
        (ACL_ERROR_RT_STREAM_UNJOINED as i64, 107025),
        (ACL_ERROR_RT_MODEL_CAPTURED as i64, 107026),
        (ACL_ERROR_RT_STREAM_CAPTURED as i64, 107027),
        (ACL_ERROR_RT_EVENT_CAPTURED as i64, 107028),
        (ACL_ERROR_RT_STREAM_NOT_CAPTURED as i64, 107029),
        (ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT as i64, 107030),
        (ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT as i64, 107031),
        (ACL_ERROR_STREAM_CAPTURE_CONFLICT as i64, 107032),
        (ACL_ERROR_STREAM_TASK_GROUP_STATUS as i64, 107033),
        (ACL_ERROR_STREAM_TASK_GROUP_INTR as i64, 107034),
        (ACL_ERROR_RT_TASK_ABORT_STOP as i64, 107035),
        (ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED as i64, 107036),
        (ACL_ERROR_RT_MODEL_RUNNING as i64, 107037),
        (ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD as i64, 107038),
        (ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY as i64, 107039),
        (ACL_ERROR_RT_MODEL_UPDATE_FAILED as i64, 107040),
        (ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC as i64, 107041),
        (ACL_ERROR_RT_SYMBOL_NOT_FOUND as i64, 107042),
        (ACL_ERROR_RT_INVALID_SYMBOL as i64, 107043),
        (ACL_ERROR_RT_INVALID_DEVICE_FUNCTION as i64, 107044),
        // 107045 in CANN's current rt_error_codes.h (107046 for two days, when
        // ACL_ERROR_RT_STREAM_NOT_SUPPORT_OPERA, since removed, held 107045).
        (ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING as i64, 107045),
        (ACL_ERROR_RT_FEATURE_NOT_SUPPORT as i64, 207000),
        (ACL_ERROR_RT_MEMORY_ALLOCATION as i64, 207001),
        (ACL_ERROR_RT_MEMORY_FREE as i64, 207002),
        (ACL_ERROR_RT_AICORE_OVER_FLOW as i64, 207003),
        (ACL_ERROR_RT_NO_DEVICE as i64, 207004),
        (ACL_ERROR_RT_RESOURCE_ALLOC_FAIL as i64, 207005),
        (ACL_ERROR_RT_NO_PERMISSION as i64, 207006),
        (ACL_ERROR_RT_NO_EVENT_RESOURCE as i64, 207007),
        (ACL_ERROR_RT_NO_STREAM_RESOURCE as i64, 207008),
        (ACL_ERROR_RT_NO_NOTIFY_RESOURCE as i64, 207009),
        (ACL_ERROR_RT_NO_MODEL_RESOURCE as i64, 207010),
        (ACL_ERROR_RT_NO_CDQ_RESOURCE as i64, 207011),
        (ACL_ERROR_RT_OVER_LIMIT as i64, 207012),
        (ACL_ERROR_RT_QUEUE_EMPTY as i64, 207013),
        (ACL_ERROR_RT_QUEUE_FULL as i64, 207014),
        (ACL_ERROR_RT_REPEATED_INIT as i64, 207015),
        (ACL_ERROR_RT_AIVEC_OVER_FLOW as i64, 207016),
        (ACL_ERROR_RT_OVER_FLOW as i64, 207017),
        (ACL_ERROR_RT_DEVICE_OOM as i64, 207018),
        (ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP as i64, 207019),
        (ACL_ERROR_RT_TIMEOUT as i64, 207020),
        (ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED as i64, 207021),
        (ACL_ERROR_RT_INTERNAL_ERROR as i64, 507000),
        (ACL_ERROR_RT_TS_ERROR as i64, 507001),
        (ACL_ERROR_RT_STREAM_TASK_FULL as i64, 507002),
        (ACL_ERROR_RT_STREAM_TASK_EMPTY as i64, 507003),
        (ACL_ERROR_RT_STREAM_NOT_COMPLETE as i64, 507004),
        (ACL_ERROR_RT_END_OF_SEQUENCE as i64, 507005),
        (ACL_ERROR_RT_EVENT_NOT_COMPLETE as i64, 507006),
        (ACL_ERROR_RT_CONTEXT_RELEASE_ERROR as i64, 507007),
        (ACL_ERROR_RT_SOC_VERSION as i64, 507008),
        (ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT as i64, 507009),
        (ACL_ERROR_RT_LOST_HEARTBEAT as i64, 507010),
        (ACL_ERROR_RT_MODEL_EXECUTE as i64, 507011),
        (ACL_ERROR_RT_REPORT_TIMEOUT as i64, 507012),
        (ACL_ERROR_RT_SYS_DMA as i64, 507013),
        (ACL_ERROR_RT_AICORE_TIMEOUT as i64, 507014),
        (ACL_ERROR_RT_AICORE_EXCEPTION as i64, 507015),
        (ACL_ERROR_RT_AICORE_TRAP_EXCEPTION as i64, 507016),
        (ACL_ERROR_RT_AICPU_TIMEOUT as i64, 507017),
        (ACL_ERROR_RT_AICPU_EXCEPTION as i64, 507018),
        (ACL_ERROR_RT_AICPU_DATADUMP_RSP_ERR as i64, 507019),
        (ACL_ERROR_RT_AICPU_MODEL_RSP_ERR as i64, 507020),
        (ACL_ERROR_RT_PROFILING_ERROR as i64, 507021),
        (ACL_ERROR_RT_IPC_ERROR as i64, 507022),
        (ACL_ERROR_RT_MODEL_ABORT_NORMAL as i64, 507023),
        (ACL_ERROR_RT_KERNEL_UNREGISTERING as i64, 507024),
        (ACL_ERROR_RT_RINGBUFFER_NOT_INIT as i64, 507025),
        (ACL_ERROR_RT_RINGBUFFER_NO_DATA as i64, 507026),
        (ACL_ERROR_RT_KERNEL_LOOKUP as i64, 507027),
        (ACL_ERROR_RT_KERNEL_DUPLICATE as i64, 507028),
        (ACL_ERROR_RT_DEBUG_REGISTER_FAIL as i64, 507029),
        (ACL_ERROR_RT_DEBUG_UNREGISTER_FAIL as i64, 507030),
        (ACL_ERROR_RT_LABEL_CONTEXT as i64, 507031),
        (ACL_ERROR_RT_PROGRAM_USE_OUT as i64, 507032),
        (ACL_ERROR_RT_DEV_SETUP_ERROR as i64, 507033),
        (ACL_ERROR_RT_VECTOR_CORE_TIMEOUT as i64, 507034),
        (ACL_ERROR_RT_VECTOR_CORE_EXCEPTION as i64, 507035),
        (ACL_ERROR_RT_VECTOR_CORE_TRAP_EXCEPTION as i64, 507036),
        (ACL_ERROR_RT_CDQ_BATCH_ABNORMAL as i64, 507037),
        (ACL_ERROR_RT_DIE_MODE_CHANGE_ERROR as i64, 507038),
        (ACL_ERROR_RT_DIE_SET_ERROR as i64, 507039),
        (ACL_ERROR_RT_INVALID_DIEID as i64, 507040),
        (ACL_ERROR_RT_DIE_MODE_NOT_SET as i64, 507041),
        (ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW as i64, 507042),
        (ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW as i64, 507043),
        (ACL_ERROR_RT_VECTOR_CORE_TRAP_READ_OVERFLOW as i64, 507044),
        (ACL_ERROR_RT_VECTOR_CORE_TRAP_WRITE_OVERFLOW as i64, 507045),
        (ACL_ERROR_RT_STREAM_SYNC_TIMEOUT as i64, 507046),
        (ACL_ERROR_RT_EVENT_SYNC_TIMEOUT as i64, 507047),
        (ACL_ERROR_RT_FFTS_PLUS_TIMEOUT as i64, 507048),
        (ACL_ERROR_RT_FFTS_PLUS_EXCEPTION as i64, 507049),
        (ACL_ERROR_RT_FFTS_PLUS_TRAP_EXCEPTION as i64, 507050),
        (ACL_ERROR_RT_SEND_MSG as i64, 507051),
        (ACL_ERROR_RT_COPY_DATA as i64, 507052),
        (ACL_ERROR_RT_DEVICE_MEM_ERROR as i64, 507053),
        (ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR as i64, 507054),
        (ACL_ERROR_RT_SUSPECT_DEVICE_MEM_ERROR as i64, 507055),
        (ACL_ERROR_RT_LINK_ERROR as i64, 507056),
        (ACL_ERROR_RT_SUSPECT_REMOTE_ERROR as i64, 507057),
        (ACL_ERROR_RT_DRV_INTERNAL_ERROR as i64, 507899),
        (ACL_ERROR_RT_AICPU_INTERNAL_ERROR as i64, 507900),
        (ACL_ERROR_RT_SOCKET_CLOSE as i64, 507901),
        (ACL_ERROR_RT_AICPU_INFO_LOAD_RSP_ERR as i64, 507902),
        (ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED as i64, 507903),
        (ACL_ERROR_RT_COMM_OP_RETRY_FAIL as i64, 507904),
        (ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT as i64, 507905),
        (ACL_ERROR_SNAPSHOT_LOCK_FAILED as i64, 507906),
        (ACL_ERROR_SNAPSHOT_UNLOCK_FAILED as i64, 507907),
        (ACL_ERROR_SNAPSHOT_BACKUP_FAILED as i64, 507908),
        (ACL_ERROR_SNAPSHOT_RESTORE_FAILED as i64, 507909),
        (ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED as i64, 507910),
        (ACL_ERROR_HOST_MEMORY_NOT_REGISTERED as i64, 507911),
        (ACL_ERROR_SNAPSHOT_CALLBACK_FAILED as i64, 507912),
        (ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED as i64, 507913),
        (ACL_ERROR_RT_L3_PORT_ERROR as i64, 507914),
        (ACL_ERROR_RT_CCU_TIMEOUT as i64, 507915),
        (ACL_ERROR_RT_CCU_EXCEPTION as i64, 507916),
    ];
    assert_eq!(expected.len(), 145);
    for (i, (value, want)) in expected.iter().enumerate() {
        assert_eq!(value, want, "entry {i}");
    }
}

#[test]
fn aclnn_status_codes() {
    let expected: &[(i64, i64)] = &[
        (ACLNN_SUCCESS as i64, 0),
        (ACLNN_ERR_PARAM_NULLPTR as i64, 161001),
        (ACLNN_ERR_PARAM_INVALID as i64, 161002),
        (ACLNN_ERR_RUNTIME_ERROR as i64, 361001),
        (ACLNN_ERR_INNER as i64, 561000),
        (ACLNN_ERR_INNER_INFERSHAPE_ERROR as i64, 561001),
        (ACLNN_ERR_INNER_TILING_ERROR as i64, 561002),
        (ACLNN_ERR_INNER_FIND_KERNEL_ERROR as i64, 561003),
        (ACLNN_ERR_INNER_CREATE_EXECUTOR as i64, 561101),
        (ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR as i64, 561102),
        (ACLNN_ERR_INNER_NULLPTR as i64, 561103),
        (ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE as i64, 561104),
        (ACLNN_ERR_INNER_KEY_CONFILICT as i64, 561105),
        (ACLNN_ERR_INNER_KEY_CONFLICT as i64, 561105),
        (ACLNN_ERR_INNER_INVALID_IMPL_MODE as i64, 561106),
        (ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND as i64, 561107),
        (ACLNN_ERR_INNER_LOAD_JSON_FAILED as i64, 561108),
        (ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND as i64, 561109),
        (ACLNN_ERR_INNER_JSON_FORMAT_INVALID as i64, 561110),
        (ACLNN_ERR_INNER_JSON_DTYPE_INVALID as i64, 561111),
        (ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND as i64, 561112),
        (ACLNN_ERR_INNER_OP_FILE_INVALID as i64, 561113),
        (ACLNN_ERR_INNER_ATTR_NUM_OUT_OF_BOUND as i64, 561114),
        (ACLNN_ERR_INNER_ATTR_LEN_NOT_ENOUGH as i64, 561115),
        (ACLNN_ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE as i64, 561116),
        (ACLNN_ERR_INNER_INPUT_JSON_IS_NULL as i64, 561117),
        (ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID as i64, 561118),
        (ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID as i64, 561119),
    ];
    assert_eq!(expected.len(), 28);
    for (i, (value, want)) in expected.iter().enumerate() {
        assert_eq!(value, want, "entry {i}");
    }
}

/// Constants CANN's current runtime headers no longer define are not
/// declared (`ACL_ERROR_RT_STREAM_NOT_SUPPORT_OPERA` existed for two days).
#[test]
fn removed_constants_are_not_declared() {
    assert!(!cann_sys::headers::CANN_SYS_H.contains("ACL_ERROR_RT_STREAM_NOT_SUPPORT_OPERA"));
}

/// `aclrtGetSocName` is declared where CANN declares it (`acl_base_rt.h`,
/// which the generated layout's `acl/acl_base.h` stands for), and
/// `acl/acl.h` still reaches it.
#[test]
fn soc_name_is_declared_in_the_base_header() {
    let headers = cann_sys::headers::cann_headers();
    let text = |path: &str| {
        headers
            .iter()
            .find(|h| h.path == path)
            .map(|h| h.text.clone())
            .unwrap_or_else(|| panic!("{path} is generated"))
    };
    assert!(text("acl/acl_base.h").contains("aclrtGetSocName"));
    assert!(!text("acl/acl_rt.h").contains("aclrtGetSocName"));
    assert!(text("acl/acl_rt.h").contains("#include \"acl_base.h\""));
    assert!(text("acl/acl.h").contains("#include \"acl_rt.h\""));
}
