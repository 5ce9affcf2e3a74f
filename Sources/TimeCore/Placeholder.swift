// TimeCore
