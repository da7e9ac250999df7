-- sdcaudit cell summaries (schema 1, docs/cells.md) for register.enterprises, dialect duckdb
-- dims region, nace, size; value turnover (scale 2); top 2; powers 1..4; holding enterprise_group
WITH sdc_src0 AS (
  SELECT CASE WHEN CAST("region" AS VARCHAR) IN ('North', 'South') OR CAST("region" AS VARCHAR) IS NULL OR CAST("region" AS VARCHAR) NOT IN ('N1', 'N2', 'S1')
      THEN CAST(error('sdcaudit: a code in column region is a parent code of its hierarchy or not in its hierarchy file; records must carry the codes below') AS VARCHAR)
      ELSE CAST("region" AS VARCHAR) END AS "region", CASE WHEN CAST("nace" AS VARCHAR) IN ('BCD', 'C', 'F')
      THEN CAST(error('sdcaudit: a code in column nace is a parent code of its hierarchy or not in its hierarchy file; records must carry the codes below') AS VARCHAR)
      ELSE CAST("nace" AS VARCHAR) END AS "nace", "size",
    CASE WHEN "enterprise_group" IS NULL THEN error('sdcaudit: a holding id in column enterprise_group is NULL') ELSE "enterprise_group" END AS sdc_h,
    CASE WHEN "turnover" IS NULL THEN NULL
      WHEN NOT regexp_full_match(TRIM(CAST("turnover" AS VARCHAR)), '^[+-]?([0-9]+([.][0-9]{0,2}0*)?|[.][0-9]{1,2}0*)$')
      THEN CAST(error('sdcaudit: a value in column turnover is not a decimal number with at most 2 decimals that fits DECIMAL(38, 2) (declare an exact numeric type, or set --value-decimals)') AS DECIMAL(38, 2))
      WHEN CASE WHEN length(TRIM(CAST("turnover" AS VARCHAR))) <= 16 THEN CAST(CAST(TRIM(CAST("turnover" AS VARCHAR)) AS DECIMAL(18, 2)) AS DECIMAL(38, 2)) ELSE CAST(TRIM(CAST("turnover" AS VARCHAR)) AS DECIMAL(38, 2)) END IS NULL
      THEN CAST(error('sdcaudit: a value in column turnover is not a decimal number with at most 2 decimals that fits DECIMAL(38, 2) (declare an exact numeric type, or set --value-decimals)') AS DECIMAL(38, 2))
      ELSE CASE WHEN length(TRIM(CAST("turnover" AS VARCHAR))) <= 16 THEN CAST(CAST(TRIM(CAST("turnover" AS VARCHAR)) AS DECIMAL(18, 2)) AS DECIMAL(38, 2)) ELSE CAST(TRIM(CAST("turnover" AS VARCHAR)) AS DECIMAL(38, 2)) END END AS sdc_x
  FROM "register"."enterprises"
),
sdc_src AS (
  SELECT *, CAST(sdc_x * 100 AS DECIMAL(38, 0)) AS sdc_xm FROM sdc_src0
),
sdc_a0 (sdc_code, sdc_lvl) AS (
  VALUES
    ('N1', 'North'),
    ('N2', 'North'),
    ('S1', 'South')
),
sdc_e0 AS (
  SELECT s."region" AS "region", s."nace", s."size", s.sdc_h, s.sdc_x, s.sdc_xm, 0 AS sdc_t0 FROM sdc_src s
  UNION ALL
  SELECT a.sdc_lvl AS "region", s."nace", s."size", s.sdc_h, s.sdc_x, s.sdc_xm, 0 AS sdc_t0 FROM sdc_src s JOIN sdc_a0 a ON s."region" = a.sdc_code
  UNION ALL
  SELECT CAST(NULL AS VARCHAR) AS "region", s."nace", s."size", s.sdc_h, s.sdc_x, s.sdc_xm, 1 AS sdc_t0 FROM sdc_src s
),
sdc_a1 (sdc_code, sdc_lvl) AS (
  VALUES
    ('C', 'BCD'),
    ('C10', 'C'),
    ('C10', 'BCD'),
    ('C11', 'C'),
    ('C11', 'BCD'),
    ('D35', 'BCD'),
    ('F41', 'F')
),
sdc_e1 AS (
  SELECT s."region", s."nace" AS "nace", s."size", s.sdc_h, s.sdc_x, s.sdc_xm, s.sdc_t0, 0 AS sdc_t1 FROM sdc_e0 s
  UNION ALL
  SELECT s."region", a.sdc_lvl AS "nace", s."size", s.sdc_h, s.sdc_x, s.sdc_xm, s.sdc_t0, 0 AS sdc_t1 FROM sdc_e0 s JOIN sdc_a1 a ON s."nace" = a.sdc_code
  UNION ALL
  SELECT s."region", CAST(NULL AS VARCHAR) AS "nace", s."size", s.sdc_h, s.sdc_x, s.sdc_xm, s.sdc_t0, 1 AS sdc_t1 FROM sdc_e0 s
),
sdc_c1 AS (
  SELECT "region", "nace", "size",
    sdc_t0 * 4 + sdc_t1 * 2 + GROUPING("size") * 1 AS sdc_gid,
    COUNT(*) AS sdc_rows,
    COUNT(*) - COUNT(sdc_x) AS sdc_missing,
    SUM(sdc_x) AS sdc_cx,
    CASE WHEN COUNT(sdc_x) > 0 THEN 1 ELSE 0 END AS sdc_mult,
    SUM(sdc_xm) AS sdc_cm
  FROM sdc_e1
  GROUP BY GROUPING SETS (("region", sdc_t0, "nace", sdc_t1, "size", sdc_h), ("region", sdc_t0, "nace", sdc_t1, sdc_h))
),
sdc_c2 AS (
  SELECT sdc_c1.*,
    sdc_cm AS sdc_m,
    CAST(ABS(sdc_m) AS HUGEINT) AS sdc_a,
    CASE WHEN sdc_m < 0 THEN -1 ELSE 1 END AS sdc_sg,
    sdc_a & 1152921504606846975 AS sdc_p1_0,
    (sdc_a >> 60) & 1152921504606846975 AS sdc_p1_1,
    sdc_a >> 120 AS sdc_p1_2
  FROM sdc_c1
),
sdc_v2 AS (
  SELECT sdc_c2.*,
    sdc_p1_0 * sdc_p1_0 AS sdc_v2_0,
    sdc_p1_0 * sdc_p1_1 + sdc_p1_1 * sdc_p1_0 AS sdc_v2_1,
    sdc_p1_0 * sdc_p1_2 + sdc_p1_1 * sdc_p1_1 + sdc_p1_2 * sdc_p1_0 AS sdc_v2_2,
    sdc_p1_1 * sdc_p1_2 + sdc_p1_2 * sdc_p1_1 AS sdc_v2_3,
    sdc_p1_2 * sdc_p1_2 AS sdc_v2_4
  FROM sdc_c2
),
sdc_l2 AS (
  SELECT sdc_v2.*,
    (sdc_v2_0 & 1152921504606846975) AS sdc_p2_0,
    (sdc_v2_1 & 1152921504606846975) + ((sdc_v2_0 >> 60) & 1152921504606846975) AS sdc_p2_1,
    (sdc_v2_2 & 1152921504606846975) + ((sdc_v2_1 >> 60) & 1152921504606846975) + (sdc_v2_0 >> 120) AS sdc_p2_2,
    (sdc_v2_3 & 1152921504606846975) + ((sdc_v2_2 >> 60) & 1152921504606846975) + (sdc_v2_1 >> 120) AS sdc_p2_3,
    (sdc_v2_4 & 1152921504606846975) + ((sdc_v2_3 >> 60) & 1152921504606846975) + (sdc_v2_2 >> 120) AS sdc_p2_4
  FROM sdc_v2
),
sdc_v3 AS (
  SELECT sdc_l2.*,
    sdc_p2_0 * sdc_p1_0 AS sdc_v3_0,
    sdc_p2_0 * sdc_p1_1 + sdc_p2_1 * sdc_p1_0 AS sdc_v3_1,
    sdc_p2_0 * sdc_p1_2 + sdc_p2_1 * sdc_p1_1 + sdc_p2_2 * sdc_p1_0 AS sdc_v3_2,
    sdc_p2_1 * sdc_p1_2 + sdc_p2_2 * sdc_p1_1 + sdc_p2_3 * sdc_p1_0 AS sdc_v3_3,
    sdc_p2_2 * sdc_p1_2 + sdc_p2_3 * sdc_p1_1 + sdc_p2_4 * sdc_p1_0 AS sdc_v3_4,
    sdc_p2_3 * sdc_p1_2 + sdc_p2_4 * sdc_p1_1 AS sdc_v3_5,
    sdc_p2_4 * sdc_p1_2 AS sdc_v3_6
  FROM sdc_l2
),
sdc_l3 AS (
  SELECT sdc_v3.*,
    (sdc_v3_0 & 1152921504606846975) AS sdc_p3_0,
    (sdc_v3_1 & 1152921504606846975) + ((sdc_v3_0 >> 60) & 1152921504606846975) AS sdc_p3_1,
    (sdc_v3_2 & 1152921504606846975) + ((sdc_v3_1 >> 60) & 1152921504606846975) + (sdc_v3_0 >> 120) AS sdc_p3_2,
    (sdc_v3_3 & 1152921504606846975) + ((sdc_v3_2 >> 60) & 1152921504606846975) + (sdc_v3_1 >> 120) AS sdc_p3_3,
    (sdc_v3_4 & 1152921504606846975) + ((sdc_v3_3 >> 60) & 1152921504606846975) + (sdc_v3_2 >> 120) AS sdc_p3_4,
    (sdc_v3_5 & 1152921504606846975) + ((sdc_v3_4 >> 60) & 1152921504606846975) + (sdc_v3_3 >> 120) AS sdc_p3_5,
    (sdc_v3_6 & 1152921504606846975) + ((sdc_v3_5 >> 60) & 1152921504606846975) + (sdc_v3_4 >> 120) AS sdc_p3_6
  FROM sdc_v3
),
sdc_v4 AS (
  SELECT sdc_l3.*,
    sdc_p3_0 * sdc_p1_0 AS sdc_v4_0,
    sdc_p3_0 * sdc_p1_1 + sdc_p3_1 * sdc_p1_0 AS sdc_v4_1,
    sdc_p3_0 * sdc_p1_2 + sdc_p3_1 * sdc_p1_1 + sdc_p3_2 * sdc_p1_0 AS sdc_v4_2,
    sdc_p3_1 * sdc_p1_2 + sdc_p3_2 * sdc_p1_1 + sdc_p3_3 * sdc_p1_0 AS sdc_v4_3,
    sdc_p3_2 * sdc_p1_2 + sdc_p3_3 * sdc_p1_1 + sdc_p3_4 * sdc_p1_0 AS sdc_v4_4,
    sdc_p3_3 * sdc_p1_2 + sdc_p3_4 * sdc_p1_1 + sdc_p3_5 * sdc_p1_0 AS sdc_v4_5,
    sdc_p3_4 * sdc_p1_2 + sdc_p3_5 * sdc_p1_1 + sdc_p3_6 * sdc_p1_0 AS sdc_v4_6,
    sdc_p3_5 * sdc_p1_2 + sdc_p3_6 * sdc_p1_1 AS sdc_v4_7,
    sdc_p3_6 * sdc_p1_2 AS sdc_v4_8
  FROM sdc_l3
),
sdc_l4 AS (
  SELECT sdc_v4.*,
    (sdc_v4_0 & 1152921504606846975) AS sdc_p4_0,
    (sdc_v4_1 & 1152921504606846975) + ((sdc_v4_0 >> 60) & 1152921504606846975) AS sdc_p4_1,
    (sdc_v4_2 & 1152921504606846975) + ((sdc_v4_1 >> 60) & 1152921504606846975) + (sdc_v4_0 >> 120) AS sdc_p4_2,
    (sdc_v4_3 & 1152921504606846975) + ((sdc_v4_2 >> 60) & 1152921504606846975) + (sdc_v4_1 >> 120) AS sdc_p4_3,
    (sdc_v4_4 & 1152921504606846975) + ((sdc_v4_3 >> 60) & 1152921504606846975) + (sdc_v4_2 >> 120) AS sdc_p4_4,
    (sdc_v4_5 & 1152921504606846975) + ((sdc_v4_4 >> 60) & 1152921504606846975) + (sdc_v4_3 >> 120) AS sdc_p4_5,
    (sdc_v4_6 & 1152921504606846975) + ((sdc_v4_5 >> 60) & 1152921504606846975) + (sdc_v4_4 >> 120) AS sdc_p4_6,
    (sdc_v4_7 & 1152921504606846975) + ((sdc_v4_6 >> 60) & 1152921504606846975) + (sdc_v4_5 >> 120) AS sdc_p4_7,
    (sdc_v4_8 & 1152921504606846975) + ((sdc_v4_7 >> 60) & 1152921504606846975) + (sdc_v4_6 >> 120) AS sdc_p4_8
  FROM sdc_v4
)
SELECT "region", "nace", "size",
  sdc_gid AS "grouping_id",
  CAST(SUM(sdc_rows) AS BIGINT) AS "rows",
  CAST(SUM(sdc_mult) AS BIGINT) AS "n",
  CAST(SUM(sdc_missing) AS BIGINT) AS "missing",
  CAST(SUM(CASE WHEN sdc_cx < 0 THEN sdc_mult ELSE 0 END) AS BIGINT) AS "negative",
  COALESCE(SUM(sdc_mult * sdc_cx), 0) AS "total",
  MIN(sdc_cx) AS "min",
  MAX(sdc_cx) AS "max",
  COALESCE(array_to_string(max(sdc_cx, 2) FILTER (WHERE sdc_mult > 0), ';'), '') AS "top",
  2 AS "scale",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p1_0), 0) AS DECIMAL(38, 0)) AS "sum_pow_1_limb_0",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p1_1), 0) AS DECIMAL(38, 0)) AS "sum_pow_1_limb_1",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p1_2), 0) AS DECIMAL(38, 0)) AS "sum_pow_1_limb_2",
  CAST(COALESCE(SUM(sdc_mult * sdc_p2_0), 0) AS DECIMAL(38, 0)) AS "sum_pow_2_limb_0",
  CAST(COALESCE(SUM(sdc_mult * sdc_p2_1), 0) AS DECIMAL(38, 0)) AS "sum_pow_2_limb_1",
  CAST(COALESCE(SUM(sdc_mult * sdc_p2_2), 0) AS DECIMAL(38, 0)) AS "sum_pow_2_limb_2",
  CAST(COALESCE(SUM(sdc_mult * sdc_p2_3), 0) AS DECIMAL(38, 0)) AS "sum_pow_2_limb_3",
  CAST(COALESCE(SUM(sdc_mult * sdc_p2_4), 0) AS DECIMAL(38, 0)) AS "sum_pow_2_limb_4",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p3_0), 0) AS DECIMAL(38, 0)) AS "sum_pow_3_limb_0",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p3_1), 0) AS DECIMAL(38, 0)) AS "sum_pow_3_limb_1",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p3_2), 0) AS DECIMAL(38, 0)) AS "sum_pow_3_limb_2",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p3_3), 0) AS DECIMAL(38, 0)) AS "sum_pow_3_limb_3",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p3_4), 0) AS DECIMAL(38, 0)) AS "sum_pow_3_limb_4",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p3_5), 0) AS DECIMAL(38, 0)) AS "sum_pow_3_limb_5",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p3_6), 0) AS DECIMAL(38, 0)) AS "sum_pow_3_limb_6",
  CAST(COALESCE(SUM(sdc_mult * sdc_p4_0), 0) AS DECIMAL(38, 0)) AS "sum_pow_4_limb_0",
  CAST(COALESCE(SUM(sdc_mult * sdc_p4_1), 0) AS DECIMAL(38, 0)) AS "sum_pow_4_limb_1",
  CAST(COALESCE(SUM(sdc_mult * sdc_p4_2), 0) AS DECIMAL(38, 0)) AS "sum_pow_4_limb_2",
  CAST(COALESCE(SUM(sdc_mult * sdc_p4_3), 0) AS DECIMAL(38, 0)) AS "sum_pow_4_limb_3",
  CAST(COALESCE(SUM(sdc_mult * sdc_p4_4), 0) AS DECIMAL(38, 0)) AS "sum_pow_4_limb_4",
  CAST(COALESCE(SUM(sdc_mult * sdc_p4_5), 0) AS DECIMAL(38, 0)) AS "sum_pow_4_limb_5",
  CAST(COALESCE(SUM(sdc_mult * sdc_p4_6), 0) AS DECIMAL(38, 0)) AS "sum_pow_4_limb_6",
  CAST(COALESCE(SUM(sdc_mult * sdc_p4_7), 0) AS DECIMAL(38, 0)) AS "sum_pow_4_limb_7",
  CAST(COALESCE(SUM(sdc_mult * sdc_p4_8), 0) AS DECIMAL(38, 0)) AS "sum_pow_4_limb_8",
  '{"schema":1,"table":"register.enterprises","dims":["region","nace","size"],"value":"turnover","holding":"enterprise_group","k":2,"powers":4,"scale":2,"engine":"duckdb","hierarchies":["region","nace"],"limb_bits":60}' AS "meta"
FROM sdc_l4
GROUP BY sdc_gid, "region", "nace", "size"
ORDER BY 4, 1, 2, 3
